package dev.baton.benchmarks.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Counts the commands clients send to Redis while some work runs, apart from the commands that
 * Lua scripts call, by reading {@code MONITOR} (which tags script calls with {@code [0 lua]}).
 * Commands sent by clients approximate round trips: {@code INFO commandstats} alone cannot tell
 * one {@code EVALSHA} that calls five commands from six round trips. {@code MONITOR} slows the
 * server down, so the census runs apart from the timed runs.
 */
public final class CommandCensus implements AutoCloseable {

	/** How long {@code MONITOR} output may trail the work. */
	public static final Duration TRAIL = Duration.ofMillis(200);

	private final Socket socket;

	private final AtomicLong fromClients = new AtomicLong();

	private final AtomicLong fromScripts = new AtomicLong();

	private CommandCensus(String redisUrl) throws IOException {
		URI uri = URI.create(redisUrl);
		this.socket = new Socket(uri.getHost(), uri.getPort());
		this.socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
		BufferedReader lines = new BufferedReader(
				new InputStreamReader(this.socket.getInputStream(), StandardCharsets.UTF_8));
		String reply = lines.readLine();
		if (!"+OK".equals(reply)) {
			throw new IllegalStateException("MONITOR answered " + reply);
		}
		Thread reader = new Thread(() -> count(lines), "bench-monitor");
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Starts counting; {@link #close()} stops.
	 * @param redisUrl the server
	 * @return the running census
	 */
	public static CommandCensus start(String redisUrl) {
		try {
			return new CommandCensus(redisUrl);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("MONITOR failed", ex);
		}
	}

	/**
	 * Returns the commands counted so far, per operation.
	 * @param operations how many operations the counted work did
	 * @return client and script commands per operation
	 */
	public Result per(long operations) {
		return per(operations, TRAIL);
	}

	/**
	 * Returns the commands counted so far, per operation, after another wait for the trailing
	 * {@code MONITOR} output than the 200 ms of a real run.
	 * @param operations how many operations the counted work did
	 * @param trail how long to wait for output that trails the work
	 * @return client and script commands per operation
	 */
	public Result per(long operations, Duration trail) {
		try {
			// MONITOR output trails the work a little
			Thread.sleep(trail.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return new Result((double) this.fromClients.get() / Math.max(1, operations),
				(double) this.fromScripts.get() / Math.max(1, operations));
	}

	/**
	 * Runs work while counting commands.
	 * @param redisUrl the server
	 * @param work the work, returning how many operations it did
	 * @return client commands per operation and script commands per operation
	 */
	public static Result during(String redisUrl, Supplier<Long> work) {
		return during(redisUrl, TRAIL, work);
	}

	/**
	 * Runs work while counting commands, with another wait for the trailing {@code MONITOR}
	 * output than the 200 ms of a real run.
	 * @param redisUrl the server
	 * @param trail how long to wait for output that trails the work
	 * @param work the work, returning how many operations it did
	 * @return client commands per operation and script commands per operation
	 */
	public static Result during(String redisUrl, Duration trail, Supplier<Long> work) {
		try (CommandCensus census = start(redisUrl)) {
			return census.per(work.get(), trail);
		}
	}

	private void count(BufferedReader lines) {
		try {
			for (String line = lines.readLine(); line != null; line = lines.readLine()) {
				int open = line.indexOf('[');
				int close = line.indexOf(']', open + 1);
				if (open < 0 || close < 0 || line.startsWith(" \"info\"", close + 1)) {
					continue;
				}
				boolean script = line.substring(open + 1, close).endsWith(" lua");
				(script ? this.fromScripts : this.fromClients).incrementAndGet();
			}
		}
		catch (IOException ex) {
			// the census was closed
		}
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * What a census counted.
	 * @param clientCommandsPerOperation commands sent by clients (about the round trips)
	 * @param scriptCommandsPerOperation commands run inside Lua scripts
	 */
	public record Result(double clientCommandsPerOperation, double scriptCommandsPerOperation) {
	}

}
