package dev.baton.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;
import org.h2.tools.Server;

/**
 * {@code java -jar baton-sample-app.jar --services-only}: starts what instances of the sample
 * share, in a process of their own, so that instances can come and go while it keeps their locks,
 * tasks and orders: the sample's Redis on {@code localhost:6379} (where instances look when
 * nothing is configured), with an append-only file under {@code target/baton-sample-redis}, and
 * the database of the {@code shared-db} profile, an H2 server on {@code localhost:9092} with its
 * files under {@code target/baton-sample-db}. Both stop with this process (Ctrl-C).
 * {@code --redis.port=}, {@code --redis.dir=}, {@code --db.port=} and {@code --db.dir=} change
 * them.
 */
final class ServicesOnly {

	static final String ARGUMENT = "--services-only";

	private ServicesOnly() {
	}

	static boolean requested(String[] args) {
		return Stream.of(args).anyMatch(ARGUMENT::equals);
	}

	static void run(String[] args) throws IOException, SQLException, InterruptedException {
		Path redisDir = directory(option(args, "--redis.dir=", "target/baton-sample-redis"));
		LocalRedisServer redis = RedisServers.startLocal(Integer.parseInt(option(args, "--redis.port=", "6379")),
				"--appendonly", "yes", "--dir", redisDir.toString());
		System.out.println("Redis " + redis.version() + " ready at " + redis.url() + ", data in " + redisDir);
		// A server of its own rather than H2's automatic mixed mode, where the instance that opened
		// the file serves it to the others: when that instance stopped, the others had to take over
		// the file, and a cancellation it had just committed for them was seen lost.
		Path dbDir = directory(option(args, "--db.dir=", "target/baton-sample-db"));
		Server db = Server
			.createTcpServer("-tcpPort", option(args, "--db.port=", "9092"), "-baseDir", dbDir.toString(), "-ifNotExists")
			.start();
		System.out.println("Database ready at jdbc:h2:tcp://localhost:" + db.getPort() + "/orders, data in " + dbDir
				+ "; start the instances now, stop both with Ctrl-C");
		// The servers stop when this JVM does.
		new CountDownLatch(1).await();
	}

	private static Path directory(String path) throws IOException {
		return Files.createDirectories(Path.of(path).toAbsolutePath());
	}

	private static String option(String[] args, String prefix, String fallback) {
		return Stream.of(args)
			.filter((arg) -> arg.startsWith(prefix))
			.map((arg) -> arg.substring(prefix.length()))
			.reduce((first, second) -> second)
			.orElse(fallback);
	}

}
