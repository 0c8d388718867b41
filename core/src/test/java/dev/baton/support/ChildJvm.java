package dev.baton.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A JVM started from this test's class path, talked to through its standard streams. */
public final class ChildJvm implements AutoCloseable {

	private final Process process;

	private final BufferedReader output;

	private final Writer input;

	private ChildJvm(Process process) {
		this.process = process;
		this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
		this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
	}

	public static ChildJvm start(Class<?> main, String... args) throws IOException {
		List<String> command = new ArrayList<>(List.of(
				Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto", "-XX:TieredStopAtLevel=1",
				"-cp", System.getProperty("java.class.path"), main.getName()));
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

	public void send(String line) throws IOException {
		this.input.write(line + "\n");
		this.input.flush();
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
