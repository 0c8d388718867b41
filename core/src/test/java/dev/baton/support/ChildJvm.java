package dev.baton.support;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A JVM started from this test's class path, talked to through its standard streams. */
public final class ChildJvm implements AutoCloseable {

	private final Process process;

	private final BufferedReader output;

	private final Writer input;

	/** When it was last paused, as {@link System#nanoTime()}. */
	private long pausedAt;

	private ChildJvm(Process process) {
		this.process = process;
		this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
		this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
	}

	public static ChildJvm start(Class<?> main, String... args) throws IOException {
		String classPath = System.getProperty("java.class.path");
		List<String> command = new ArrayList<>(List.of(
				Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto", "-XX:TieredStopAtLevel=1",
				"-cp", classPath));
		if (!classPath.contains(File.pathSeparator) && classPath.endsWith(".jar")) {
			// A packaged application (the benchmarks' long run): its classes are in nested jars, which
			// Spring Boot's launcher opens.
			command.addAll(List.of("-Dloader.main=" + main.getName(), "org.springframework.boot.loader.launch.PropertiesLauncher"));
		}
		else {
			command.add(main.getName());
		}
		command.addAll(List.of(args));
		return new ChildJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
	}

	/**
	 * In a child JVM's main: a started connection factory for the Redis URL it was given. The
	 * caller destroys it.
	 */
	public static LettuceConnectionFactory connectionFactory(String redisUrl) {
		URI redis = URI.create(redisUrl);
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.getHost(), redis.getPort()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		return connectionFactory;
	}

	/** Reads output lines until one starts with {@code prefix}; returns the rest of that line. */
	public String awaitLine(String prefix) throws IOException {
		StringBuilder seen = new StringBuilder();
		for (String line = this.output.readLine(); line != null; line = this.output.readLine()) {
			if (line.startsWith(prefix)) {
				return line.substring(prefix.length()).trim();
			}
			seen.append(line).append('\n');
		}
		throw new IllegalStateException("Child JVM ended without printing '" + prefix + "':\n" + seen);
	}

	/**
	 * Reads output lines until one starts with {@code prefix}, for at most {@code timeout};
	 * returns the rest of that line. Kills the JVM when the time runs out, as its output can no
	 * longer be read in order.
	 */
	public String awaitLine(String prefix, Duration timeout) throws IOException, InterruptedException {
		// A thread of its own: the common pool may have a single, busy thread on a small machine.
		CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
			try {
				return awaitLine(prefix);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}, ChildJvm::startReader);
		try {
			return line.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			kill();
			throw new IllegalStateException("Child JVM printed no '" + prefix + "' within " + timeout, ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("Child JVM printed no '" + prefix + "'", ex.getCause());
		}
	}

	private static void startReader(Runnable reading) {
		Thread reader = new Thread(reading, "child-jvm-output");
		reader.setDaemon(true);
		reader.start();
	}

	public void send(String line) throws IOException {
		this.input.write(line + "\n");
		this.input.flush();
	}

	/**
	 * Freezes the JVM (SIGSTOP), as a long stop-the-world pause or a suspended VM would: none of
	 * its threads runs, its sockets stay open, its monotonic clock goes on. Until
	 * {@link #resumeAfter}.
	 */
	public void pause() throws IOException, InterruptedException {
		signal("STOP");
		this.pausedAt = System.nanoTime();
	}

	/** Lets the {@linkplain #pause() paused} JVM run again (SIGCONT) once it has been paused for {@code pause}. */
	public void resumeAfter(Duration pause) throws IOException, InterruptedException {
		TimeUnit.NANOSECONDS.sleep(this.pausedAt + pause.toNanos() - System.nanoTime());
		signal("CONT");
	}

	private void signal(String signal) throws IOException, InterruptedException {
		String pid = Long.toString(this.process.pid());
		Process kill = new ProcessBuilder("kill", "-" + signal, pid).inheritIO().start();
		if (kill.waitFor() != 0) {
			throw new IllegalStateException("kill -" + signal + " " + pid + " exited with " + kill.exitValue());
		}
	}

	public void kill() throws InterruptedException {
		this.process.destroyForcibly();
		this.process.waitFor(10, TimeUnit.SECONDS);
	}

	@Override
	public void close() throws InterruptedException {
		kill();
	}

}
