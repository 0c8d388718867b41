package dev.baton.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Command-line options, each {@code --name=value}; the defaults are the workloads of issues 3
 * and 4.
 * @param runs measured runs per figure (the table shows their median)
 * @param warmup length of the unmeasured warm-up run of each timed scenario
 * @param duration length of each measured run of the lock scenarios
 * @param lockThreads threads of the lock scenarios (split over two JVMs in the two-JVM scenario)
 * @param tasks tasks of the enqueue and drain scenarios
 * @param batchSize tasks per {@code scheduleAll} call
 * @param consumers consumer threads of the queue scenarios
 * @param drainTimeout how long a drain may take before the run is reported as unfinished
 * @param latenessRate tasks per second of the lateness scenario
 * @param latenessDuration how long the lateness scenario schedules tasks
 * @param latenessMaxDelay the longest delay of the lateness scenario's tasks (the shortest is 100 ms)
 * @param idleDuration how long the idle scenario counts Redis commands
 * @param waitScale factor of the harness's fixed waits, which are not measured: the start delay of
 * the lock runs, the pauses before Redis's counters are read once work is done, the least time
 * given to storing before tasks fall due, the wait for {@code MONITOR}'s trailing output; 1 for
 * real runs, less only for smoke runs whose figures mean nothing
 * @param only implementations to run, or all when empty
 * @param redisUrl an existing Redis server, or {@code null} to start a local one
 */
public record BenchmarkSettings(int runs, Duration warmup, Duration duration, int lockThreads, int tasks,
		int batchSize, int consumers, Duration drainTimeout, int latenessRate, Duration latenessDuration,
		Duration latenessMaxDelay, Duration idleDuration, double waitScale, Set<String> only,
		@Nullable String redisUrl) {

	/**
	 * Reads {@code --name=value} options; the defaults are the workloads of the issues.
	 * @param options the options
	 * @return the settings
	 */
	public static BenchmarkSettings parse(String... options) {
		Map<String, String> values = new HashMap<>();
		for (String option : options) {
			if (!option.startsWith("--") || !option.contains("=")) {
				throw new IllegalArgumentException("Options look like --name=value, not '" + option + "'");
			}
			values.put(option.substring(2, option.indexOf('=')), option.substring(option.indexOf('=') + 1));
		}
		BenchmarkSettings settings = new BenchmarkSettings(integer(values, "runs", 3),
				duration(values, "warmup", "5s"), duration(values, "duration", "3s"),
				integer(values, "lock-threads", 8), integer(values, "tasks", 100_000),
				integer(values, "batch-size", 1000), integer(values, "consumers", 4),
				duration(values, "drain-timeout", "180s"), integer(values, "lateness-rate", 200),
				duration(values, "lateness-duration", "20s"), duration(values, "lateness-max-delay", "2s"),
				duration(values, "idle-duration", "30s"), number(values, "wait-scale", 1),
				names(values.remove("only")), values.remove("redis"));
		if (!values.isEmpty()) {
			throw new IllegalArgumentException("Unknown options " + values.keySet());
		}
		return settings;
	}

	/**
	 * Whether an implementation was selected with {@code --only}.
	 * @param name the implementation's name
	 * @return {@code true} when it should run
	 */
	public boolean selects(String name) {
		return this.only.isEmpty() || this.only.contains(name);
	}

	/**
	 * One of the harness's fixed waits, scaled by {@link #waitScale()}.
	 * @param wait the wait of a real run
	 * @return the wait of this run
	 */
	public Duration scaled(Duration wait) {
		return Duration.ofNanos(Math.round(wait.toNanos() * this.waitScale));
	}

	/**
	 * Whether the warm-up runs are skipped ({@code --warmup=0ms}, for smoke runs).
	 * @return {@code true} when the warm-up is zero
	 */
	public boolean skipsWarmup() {
		return this.warmup.isZero();
	}

	private static int integer(Map<String, String> values, String name, int defaultValue) {
		String value = values.remove(name);
		return (value != null) ? Integer.parseInt(value.replace("_", "")) : defaultValue;
	}

	private static double number(Map<String, String> values, String name, double defaultValue) {
		String value = values.remove(name);
		return (value != null) ? Double.parseDouble(value) : defaultValue;
	}

	private static Duration duration(Map<String, String> values, String name, String defaultValue) {
		String value = values.remove(name);
		return parseDuration(name, (value != null) ? value : defaultValue);
	}

	static Duration parseDuration(String name, String value) {
		String text = value.trim().toLowerCase(Locale.ROOT);
		try {
			if (text.endsWith("ms")) {
				return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
			}
			if (text.endsWith("s")) {
				return Duration.ofMillis(Math.round(Double.parseDouble(text.substring(0, text.length() - 1)) * 1000));
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new IllegalArgumentException("--" + name + " takes a duration such as 500ms or 3s, not '" + value + "'");
	}

	private static Set<String> names(@Nullable String list) {
		return (list == null) ? Set.of()
				: Arrays.stream(list.split(",")).map(String::trim).filter((name) -> !name.isEmpty())
					.collect(Collectors.toUnmodifiableSet());
	}

}
