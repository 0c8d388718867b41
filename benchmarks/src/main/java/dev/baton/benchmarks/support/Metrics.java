package dev.baton.benchmarks.support;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Named figures of one measured run, e.g. {@code pairs/s} or {@code p99 ms}, and the medians of
 * several runs.
 */
public final class Metrics {

	private final Map<String, Double> values = new LinkedHashMap<>();

	public Metrics put(String name, double value) {
		this.values.put(name, value);
		return this;
	}

	public double get(String name) {
		return this.values.getOrDefault(name, Double.NaN);
	}

	public boolean has(String name) {
		return this.values.containsKey(name);
	}

	/**
	 * Returns, for every figure, the median over the runs (the middle run of three).
	 * @param runs the measured runs, at least one
	 * @return the medians
	 */
	public static Metrics medians(List<Metrics> runs) {
		Metrics medians = new Metrics();
		for (String name : runs.get(0).values.keySet()) {
			double[] values = runs.stream().mapToDouble((run) -> run.get(name)).sorted().toArray();
			medians.put(name, median(values));
		}
		return medians;
	}

	private static double median(double[] sorted) {
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	@Override
	public String toString() {
		StringBuilder text = new StringBuilder();
		this.values.forEach((name, value) -> text.append(text.isEmpty() ? "" : ", ")
			.append(name)
			.append('=')
			.append(Table.format(value)));
		return text.toString();
	}

	/** Formats several runs of one figure, e.g. {@code 5.1k / 5.3k / 5.0k}, for the log. */
	public static String spread(List<Metrics> runs, String name) {
		return String.join(" / ",
				Arrays.stream(runs.stream().mapToDouble((run) -> run.get(name)).toArray()).mapToObj(Table::format).toList());
	}

}
