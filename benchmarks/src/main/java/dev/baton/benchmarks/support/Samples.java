package dev.baton.benchmarks.support;

import java.util.Arrays;

/**
 * A growable array of long samples (latencies in nanoseconds or microseconds) with percentiles.
 * Not thread-safe: each thread records into its own instance and they are merged afterwards.
 */
public final class Samples {

	private long[] values = new long[1024];

	private int size;

	public void add(long value) {
		if (this.size == this.values.length) {
			this.values = Arrays.copyOf(this.values, this.size * 2);
		}
		this.values[this.size++] = value;
	}

	public void addAll(Samples other) {
		for (int i = 0; i < other.size; i++) {
			add(other.values[i]);
		}
	}

	public int size() {
		return this.size;
	}

	/**
	 * Returns the value at the given percentile (nearest rank), or {@code NaN} when empty.
	 * @param percentile between 0 and 100
	 * @return the value at that percentile
	 */
	public double percentile(double percentile) {
		if (this.size == 0) {
			return Double.NaN;
		}
		long[] sorted = Arrays.copyOf(this.values, this.size);
		Arrays.sort(sorted);
		int rank = (int) Math.ceil(percentile / 100.0 * this.size);
		return sorted[Math.max(0, Math.min(this.size - 1, rank - 1))];
	}

	public double max() {
		return percentile(100);
	}

	/** Returns the samples as a comma-separated line, for a child JVM to report them. */
	public String encode() {
		StringBuilder line = new StringBuilder(this.size * 6);
		for (int i = 0; i < this.size; i++) {
			if (i > 0) {
				line.append(',');
			}
			line.append(this.values[i]);
		}
		return line.toString();
	}

	public static Samples decode(String line) {
		Samples samples = new Samples();
		if (!line.isBlank()) {
			for (String value : line.split(",")) {
				samples.add(Long.parseLong(value));
			}
		}
		return samples;
	}

}
