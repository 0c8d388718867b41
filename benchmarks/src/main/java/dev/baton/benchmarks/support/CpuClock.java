package dev.baton.benchmarks.support;

import java.lang.management.ManagementFactory;

/** CPU time used by this whole JVM (every thread, JIT and GC included). */
public final class CpuClock {

	private static final com.sun.management.OperatingSystemMXBean os = ManagementFactory
		.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class);

	private CpuClock() {
	}

	public static long processCpuNanos() {
		return os.getProcessCpuTime();
	}

}
