package dev.baton.harness;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;

/**
 * The system properties by which a harness test runs other seeds and longer fault phases than its
 * fixed ones: {@code -D<prefix>.seeds=1,2,3} (or {@code random:20}) and
 * {@code -D<prefix>.duration=60s}.
 */
final class HarnessProperties {

	private HarnessProperties() {
	}

	/** The seeds the property names, or the test's fixed seeds without it. */
	static List<Long> seeds(String property, long... fixed) {
		String seeds = System.getProperty(property, "");
		if (seeds.isBlank()) {
			return Arrays.stream(fixed).boxed().toList();
		}
		if (seeds.startsWith("random:")) {
			return LongStream.range(0, Long.parseLong(seeds.substring("random:".length())))
				.map(HarnessProperties::randomSeed)
				.boxed()
				.toList();
		}
		return Arrays.stream(seeds.split(",")).map(String::trim).map(Long::parseLong).toList();
	}

	/** The {@code n}-th of a series of seeds nobody chose, apart even when drawn in the same nanosecond. */
	static long randomSeed(long n) {
		return System.nanoTime() ^ (n * 0x9E3779B97F4A7C15L);
	}

	/** The fault phase the property names ({@code 90s}, {@code 30m}), or the test's default. */
	static Duration faultPhase(String property, Duration defaultPhase) {
		String duration = System.getProperty(property, "").trim();
		return duration.isEmpty() ? defaultPhase : Duration.parse("PT" + duration.toUpperCase());
	}

}
