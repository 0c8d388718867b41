package dev.baton.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisServers;

/**
 * {@code java -jar baton-sample-app.jar --redis-only}: starts the sample's Redis alone, in a
 * process of its own, so that instances of the sample can come and go while it keeps their locks
 * and tasks. It listens on {@code localhost:6379} (where instances look when nothing is
 * configured), keeps its data in an append-only file under {@code target/baton-sample-redis}, and
 * stops with this process (Ctrl-C). {@code --redis.port=} and {@code --redis.dir=} change both.
 */
final class RedisOnly {

	static final String ARGUMENT = "--redis-only";

	private RedisOnly() {
	}

	static boolean requested(String[] args) {
		return Stream.of(args).anyMatch(ARGUMENT::equals);
	}

	static void run(String[] args) throws IOException, InterruptedException {
		int port = Integer.parseInt(option(args, "--redis.port=", "6379"));
		Path dir = Path.of(option(args, "--redis.dir=", "target/baton-sample-redis")).toAbsolutePath();
		Files.createDirectories(dir);
		LocalRedisServer server = RedisServers.startLocal(port, "--appendonly", "yes", "--dir", dir.toString());
		System.out.println("Redis " + server.version() + " ready at " + server.url() + ", data in " + dir
				+ "; start the instances now, stop Redis with Ctrl-C");
		// The server stops when this JVM does.
		new CountDownLatch(1).await();
	}

	private static String option(String[] args, String prefix, String fallback) {
		return Stream.of(args)
			.filter((arg) -> arg.startsWith(prefix))
			.map((arg) -> arg.substring(prefix.length()))
			.reduce((first, second) -> second)
			.orElse(fallback);
	}

}
