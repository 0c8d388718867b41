package dev.baton.benchmarks.support;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Another JVM running this harness, driven line by line over its standard input and output
 * (its standard error goes to ours). Launched the way this JVM was: {@code java -jar} for the
 * packaged benchmark jar, {@code java -cp} otherwise.
 */
public final class ChildJvm implements AutoCloseable {

	private final Process process;

	private final BufferedReader output;

	private final PrintWriter input;

	private ChildJvm(Process process) {
		this.process = process;
		this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
		this.input = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
	}

	/**
	 * Starts the harness in a new JVM.
	 * @param mainClass the harness's main class, used when this JVM was not started with {@code -jar}
	 * @param arguments the harness's arguments
	 * @return the running child
	 */
	public static ChildJvm start(Class<?> mainClass, String... arguments) {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		String classPath = System.getProperty("java.class.path");
		List<String> command = new ArrayList<>(List.of(java));
		if (!classPath.contains(File.pathSeparator) && classPath.endsWith(".jar")) {
			command.addAll(List.of("-jar", classPath));
		}
		else {
			command.addAll(List.of("-cp", classPath, mainClass.getName()));
		}
		command.addAll(List.of(arguments));
		try {
			return new ChildJvm(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start " + command, ex);
		}
	}

	public void send(String line) {
		this.input.println(line);
	}

	/**
	 * Reads the child's output up to the first line that starts with the prefix (libraries may
	 * print other lines).
	 * @param prefix e.g. {@code "READY"}
	 * @return the rest of that line, after the prefix
	 */
	public String await(String prefix) {
		try {
			for (String line = this.output.readLine(); line != null; line = this.output.readLine()) {
				if (line.startsWith(prefix)) {
					return line.substring(prefix.length()).trim();
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		throw new IllegalStateException("Child JVM ended before printing " + prefix);
	}

	@Override
	public void close() {
		this.input.close();
		try {
			if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
		}
	}

}
