package dev.baton.test.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.baton.test.LocalRedisServer;
import org.jspecify.annotations.Nullable;

import org.springframework.util.FileSystemUtils;

/**
 * A {@code redis-server} process on a free loopback port.
 *
 * <p>The server runs under a small {@code sh} guardian that blocks reading its standard input,
 * which is a pipe from this JVM. When the JVM exits, normally or by {@code SIGKILL}, the pipe
 * closes and the guardian kills the server, so no test run leaves a server behind.
 */
public final class RedisProcess implements LocalRedisServer {

	private static final String GUARDIAN = "\"$@\" & server=$!; cat >/dev/null; kill \"$server\" 2>/dev/null; wait \"$server\"";

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(15);

	private static final int ATTEMPTS = 3;

	private static final Set<RedisProcess> running = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(() -> running.forEach(RedisProcess::close), "baton-redis-stop"));
	}

	private volatile Process guardian;

	private final int port;

	private final String version;

	private final Path binary;

	private final Path dir;

	private final String[] arguments;

	/**
	 * The configuration file the server reads first, or {@code null}: Sentinel needs one it may
	 * rewrite. It sits in a directory of its own, deleted with the server's.
	 */
	private final @Nullable Path configFile;

	private RedisProcess(Launched launched, int port, Path binary, Path dir, @Nullable Path configFile,
			String[] arguments) {
		this.guardian = launched.guardian();
		this.version = launched.version();
		this.port = port;
		this.binary = binary;
		this.dir = dir;
		this.configFile = configFile;
		this.arguments = arguments;
	}

	/**
	 * Starts a server on a free port, retrying with another port if one was taken meanwhile.
	 * @param arguments extra {@code redis-server} arguments
	 * @return the running server
	 */
	public static RedisProcess start(String... arguments) {
		return startWithConfig(null, arguments);
	}

	/**
	 * Starts a server on a free port that first reads the given configuration file, e.g. a
	 * Sentinel's (with {@code --sentinel} among the arguments).
	 * @param configFile the configuration file, writable by the server, alone in a directory that
	 * {@link #close()} deletes; or {@code null}
	 * @param arguments extra {@code redis-server} arguments
	 * @return the running server
	 */
	public static RedisProcess startWithConfig(@Nullable Path configFile, String... arguments) {
		Path binary = RedisBinary.resolve();
		IllegalStateException failure = new IllegalStateException("Could not start " + binary);
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			try {
				RedisProcess server = create(binary, freePort(), configFile, arguments);
				running.add(server);
				return server;
			}
			catch (RuntimeException ex) {
				failure.addSuppressed(ex);
			}
		}
		throw failure;
	}

	/**
	 * Starts a server on the given port.
	 * @param port the port to listen on, on the loopback interface
	 * @param arguments extra {@code redis-server} arguments
	 * @return the running server
	 */
	public static RedisProcess startOn(int port, String... arguments) {
		RedisProcess server = create(RedisBinary.resolve(), port, null, arguments);
		running.add(server);
		return server;
	}

	private static RedisProcess create(Path binary, int port, @Nullable Path configFile, String... arguments) {
		try {
			Path dir = Files.createTempDirectory("baton-redis-" + port);
			return new RedisProcess(launch(binary, port, dir, configFile, arguments), port, binary, dir, configFile,
					arguments);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot create a directory for redis-server", ex);
		}
	}

	private static Launched launch(Path binary, int port, Path dir, @Nullable Path configFile, String... arguments) {
		try {
			List<String> command = new ArrayList<>(List.of("sh", "-c", GUARDIAN, "baton-redis", binary.toString()));
			if (configFile != null) {
				command.add(configFile.toString());
			}
			command.addAll(List.of("--port", String.valueOf(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
					"--daemonize", "no", "--dir", dir.toString()));
			command.addAll(List.of(arguments));
			Process guardian = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(dir.resolve("redis.log").toFile())
				.start();
			try {
				ServerProbe.ServerIdentity server = ServerProbe.awaitServer(urlOf(port), STARTUP_TIMEOUT,
						guardian::isAlive);
				// Another server already on the port would answer the probe too.
				if (guardian.toHandle().children().noneMatch((child) -> child.pid() == server.processId())) {
					throw new IllegalStateException("port " + port + " is already taken by another Redis (pid "
							+ server.processId() + ")");
				}
				return new Launched(guardian, server.version());
			}
			catch (RuntimeException ex) {
				stop(guardian);
				throw new IllegalStateException("redis-server on port " + port + " did not start; see "
						+ dir.resolve("redis.log"), ex);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot launch " + binary, ex);
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No free port", ex);
		}
	}

	private static String urlOf(int port) {
		return "redis://127.0.0.1:" + port;
	}

	@Override
	public String host() {
		return "127.0.0.1";
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public String version() {
		return this.version;
	}

	@Override
	public String origin() {
		return "redis-server process " + this.binary;
	}

	@Override
	public void kill() {
		this.guardian.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
		awaitPortFree();
		stop(this.guardian);
	}

	@Override
	public void restart() {
		this.guardian = launch(this.binary, this.port, this.dir, this.configFile, this.arguments).guardian();
	}

	@Override
	public void restartWithoutData() {
		// The default file names: dbfilename, appendfilename (Redis 6) and appenddirname (Redis 7).
		for (String data : List.of("dump.rdb", "appendonly.aof", "appendonlydir")) {
			try {
				FileSystemUtils.deleteRecursively(this.dir.resolve(data));
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot delete " + this.dir.resolve(data), ex);
			}
		}
		restart();
	}

	private void awaitPortFree() {
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			try {
				new ServerSocket(this.port, 1, InetAddress.getLoopbackAddress()).close();
				return;
			}
			catch (IOException ex) {
				try {
					Thread.sleep(20);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
		throw new IllegalStateException("Port " + this.port + " is still taken after killing redis-server");
	}

	/** A started guardian and the version its server reported. */
	private record Launched(Process guardian, String version) {

	}

	/** The guardian's process id; its child is the server. */
	public long pid() {
		return this.guardian.pid();
	}

	/** Stops the server and deletes its directory (log, dump, cluster state) and configuration file. */
	@Override
	public void close() {
		running.remove(this);
		stop(this.guardian);
		deleteQuietly(this.dir);
		if (this.configFile != null) {
			deleteQuietly(this.configFile.getParent());
		}
	}

	private static void deleteQuietly(Path directory) {
		try {
			FileSystemUtils.deleteRecursively(directory);
		}
		catch (IOException ex) {
			// Left for the operating system's temporary file clean-up.
		}
	}

	private static void stop(Process guardian) {
		try {
			guardian.getOutputStream().close();
			if (!guardian.waitFor(5, TimeUnit.SECONDS)) {
				guardian.descendants().forEach(ProcessHandle::destroyForcibly);
				guardian.destroyForcibly();
			}
		}
		catch (IOException ex) {
			guardian.destroyForcibly();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			guardian.destroyForcibly();
		}
	}

}
