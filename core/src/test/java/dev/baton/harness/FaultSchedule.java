package dev.baton.harness;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;

/**
 * A deterministic timeline of faults drawn from a seed: one track per instance proxy, where
 * faults follow each other, one track for the server, and one for the child JVM. The same seed,
 * instance count and length always give the same timeline ({@link Random}'s sequence is
 * specified), so a seed replays its faults; the interleaving of the workload's threads does not
 * replay.
 */
final class FaultSchedule {

	/** Nothing starts before this, so that every instance has connected once. */
	private static final long QUIET_START_MILLIS = 800;

	/** Every fault has ended this long before the end of the fault phase. */
	private static final long QUIET_END_MILLIS = 500;

	private final long seed;

	private final List<Fault> faults;

	private FaultSchedule(long seed, List<Fault> faults) {
		this.seed = seed;
		this.faults = List.copyOf(faults);
	}

	static FaultSchedule generate(long seed, int instances, long lengthMillis) {
		Random random = new Random(seed);
		long end = lengthMillis - QUIET_END_MILLIS;
		List<Fault> faults = new ArrayList<>();
		addProxyFaults(random, instances, end, 300, faults);
		boolean killed = false;
		long at = QUIET_START_MILLIS + 1000 + random.nextInt(2000);
		while (at < end) {
			// At most one kill a run: it empties Redis, which excuses much of what follows.
			Fault fault = serverFault(random, at, end, !killed);
			killed |= fault.kind() == FaultKind.REDIS_KILL;
			faults.add(fault);
			at = fault.endMillis() + 1500 + random.nextInt(4000);
		}
		// About one kill in two restarts Redis from its append-only file rather than empty.
		aboutOneInTwo(new Random(seed * 43 + 31), FaultKind.REDIS_KILL, FaultKind.REDIS_KILL_WITH_AOF, faults);
		addAllRestarts(seed, instances, end, faults);
		addJvmPauses(new Random(seed * 61 + 13), instances, end, faults);
		faults.sort(Comparator.comparingLong(Fault::atMillis).thenComparingInt(Fault::instance));
		return new FaultSchedule(seed, faults);
	}

	/**
	 * Pauses of the child JVM, on the track after the instances', from a random stream of their
	 * own: 0.5 to 4 s each (mostly past a lease, 1.5 s), 1 to 5 s apart.
	 */
	private static void addJvmPauses(Random random, int childTrack, long end, List<Fault> faults) {
		long at = QUIET_START_MILLIS + random.nextInt(2000);
		while (at < end) {
			Fault pause = new Fault(at, FaultKind.JVM_PAUSE, childTrack, duration(random, 500, 4000, at, end), 0);
			faults.add(pause);
			at = pause.endMillis() + 1000 + random.nextInt(4000);
		}
	}

	/**
	 * Makes about one fault of a kind in two another, at the same time, as long and on the same
	 * target, drawn from a random stream of its own, so that a seed keeps its timeline.
	 */
	private static void aboutOneInTwo(Random random, FaultKind from, FaultKind to, List<Fault> faults) {
		faults.replaceAll((fault) -> (fault.kind() == from && random.nextBoolean()) ? fault.as(to) : fault);
	}

	/**
	 * Restarts of the consumers, of the lock managers and of whole instances, each kind from a
	 * random stream of its own, so that a seed keeps the faults it had before a kind was added.
	 */
	private static void addAllRestarts(long seed, int instances, long end, List<Fault> faults) {
		addRestarts(~seed, FaultKind.CONSUMER_RESTART, instances, end, faults);
		addRestarts(seed * 31 + 17, FaultKind.LOCKS_RESTART, instances, end, faults);
		addRestarts(seed * 37 + 23, FaultKind.INSTANCE_RESTART, instances, end, faults);
	}

	/**
	 * About one instance in two restarts its consumer (or its lock manager, or all of it) once, at
	 * a random time.
	 */
	private static void addRestarts(long randomSeed, FaultKind kind, int instances, long end, List<Fault> faults) {
		Random random = new Random(randomSeed);
		for (int instance = 0; instance < instances; instance++) {
			if (random.nextBoolean() && end > QUIET_START_MILLIS + 1000) {
				long at = QUIET_START_MILLIS + random.nextInt((int) (end - QUIET_START_MILLIS - 1000));
				long duration = 100 + random.nextInt(1900);
				// In a gap between the instance's link faults: one track applies them one after another.
				for (Fault other : faults.stream().filter(byInstance(instance)).sorted(byStart()).toList()) {
					if (at < other.endMillis() + 100 && other.atMillis() < at + duration + 100) {
						at = other.endMillis() + 100;
					}
				}
				if (at + duration < end) {
					faults.add(new Fault(at, kind, instance, duration, 0));
				}
			}
		}
	}

	private static Predicate<Fault> byInstance(int instance) {
		return (fault) -> fault.instance() == instance;
	}

	private static Comparator<Fault> byStart() {
		return Comparator.comparingLong(Fault::atMillis);
	}

	/**
	 * A timeline for a Sentinel set: on the server track {@link FaultKind#FAILOVER} or
	 * {@link FaultKind#PRIMARY_KILL}, far enough apart for the set to have a replica in sync again;
	 * restarts and pauses of the child JVM as for a standalone Redis, and no link faults (the
	 * instances reach Sentinel's addresses directly).
	 */
	static FaultSchedule generateSentinel(long seed, int instances, long lengthMillis) {
		Random random = new Random(seed);
		long end = lengthMillis - QUIET_END_MILLIS;
		List<Fault> faults = new ArrayList<>();
		long at = QUIET_START_MILLIS + 1000 + random.nextInt(2000);
		while (at < end) {
			Fault fault = random.nextBoolean() ? new Fault(at, FaultKind.FAILOVER, -1, 0, 0)
					// Restarted no sooner than the promotion, which takes 1 s down-after-milliseconds and an election.
					: new Fault(at, FaultKind.PRIMARY_KILL, -1, duration(random, 3000, 5000, at, end), 0);
			faults.add(fault);
			at = fault.endMillis() + SENTINEL_SPACING_MILLIS + random.nextInt(3000);
		}
		addAllRestarts(seed, instances, end, faults);
		addJvmPauses(new Random(seed * 61 + 13), instances, end, faults);
		faults.sort(Comparator.comparingLong(Fault::atMillis).thenComparingInt(Fault::instance));
		return new FaultSchedule(seed, faults);
	}

	/** The primaries of the Redis Cluster that {@link #generateCluster} draws its faults' targets from. */
	static final int CLUSTER_PRIMARIES = 3;

	/**
	 * Between the end of one cluster fault and the next, at least: a primary frozen beyond
	 * {@code cluster-node-timeout} (2 s) is marked failed, and the mark stays up to twice that
	 * timeout after the failure, however soon the primary answers again.
	 */
	private static final long CLUSTER_SPACING_MILLIS = 2000;

	/**
	 * A timeline for a Redis Cluster of {@value #CLUSTER_PRIMARIES} primaries without replicas:
	 * on the server track, {@link FaultKind#PRIMARY_FREEZE} (or, for about one in two,
	 * {@link FaultKind#PRIMARY_KILL_WITH_AOF}) of one primary for 1 to 4 s or
	 * {@link FaultKind#PRIMARY_PAUSE} of one for 3 to 8 s (two faults in five each), or
	 * {@link FaultKind#CLIENT_KILL} on one primary; faults of each instance's link (through a proxy
	 * per node) and restarts as for a standalone Redis, the link faults sparser. A method of its
	 * own, so the standalone and Sentinel timelines of every seed stay as they were.
	 */
	static FaultSchedule generateCluster(long seed, int instances, long lengthMillis) {
		Random random = new Random(seed);
		long end = lengthMillis - QUIET_END_MILLIS;
		List<Fault> faults = new ArrayList<>();
		long at = QUIET_START_MILLIS + 1000 + random.nextInt(2000);
		while (at < end) {
			int node = random.nextInt(CLUSTER_PRIMARIES);
			int pick = random.nextInt(5);
			Fault fault;
			if (pick < 2) {
				fault = new Fault(at, FaultKind.PRIMARY_FREEZE, -1, duration(random, 1000, 4000, at, end), 0, node);
			}
			else if (pick < 4) {
				// Long enough for the other partitions' tasks to pile up behind it, were it to hold them up.
				fault = new Fault(at, FaultKind.PRIMARY_PAUSE, -1, duration(random, 3000, 8000, at, end), 0, node);
			}
			else {
				fault = new Fault(at, FaultKind.CLIENT_KILL, -1, 0, 0, node);
			}
			faults.add(fault);
			at = fault.endMillis() + CLUSTER_SPACING_MILLIS + random.nextInt(3000);
		}
		// About one freeze in two kills its primary instead, restarted from its file at the freeze's end.
		aboutOneInTwo(new Random(seed * 47 + 37), FaultKind.PRIMARY_FREEZE, FaultKind.PRIMARY_KILL_WITH_AOF, faults);
		// From a stream of their own, so that a seed keeps the server faults it had before these.
		addProxyFaults(new Random(seed * 41 + 29), instances, end, CLUSTER_LINK_GAP_MILLIS, faults);
		addAllRestarts(seed, instances, end, faults);
		addJvmPauses(new Random(seed * 61 + 13), instances, end, faults);
		faults.sort(Comparator.comparingLong(Fault::atMillis).thenComparingInt(Fault::instance));
		return new FaultSchedule(seed, faults);
	}

	/**
	 * Between the end of one fault of an instance's link and the next on a Redis Cluster, at
	 * least: longer than on a standalone Redis, as the server faults already hold up a third of
	 * the keys for seconds.
	 */
	private static final long CLUSTER_LINK_GAP_MILLIS = 2500;

	/**
	 * Between the end of one Sentinel fault and the next: the demoted or restarted node must be a
	 * replica in sync again, else the sentinels have nothing to promote.
	 */
	private static final long SENTINEL_SPACING_MILLIS = 7000;

	/**
	 * Faults of each instance's link, one after the other, each at least {@code minGapMillis} and
	 * up to 2.5 s more after the one before.
	 */
	private static void addProxyFaults(Random random, int instances, long end, long minGapMillis,
			List<Fault> faults) {
		for (int instance = 0; instance < instances; instance++) {
			long at = QUIET_START_MILLIS + random.nextInt(1500);
			while (at < end) {
				Fault fault = proxyFault(random, instance, at, end);
				faults.add(fault);
				at = fault.endMillis() + minGapMillis + random.nextInt(2500);
			}
		}
	}

	private static Fault proxyFault(Random random, int instance, long at, long end) {
		int pick = random.nextInt(10);
		if (pick < 2) {
			return new Fault(at, FaultKind.CUT, instance, duration(random, 200, 3000, at, end), 0);
		}
		if (pick < 5) {
			// Up to beyond a lease (1.5 s) and a visibility timeout (3 s): holders lose locks, tasks come back.
			return new Fault(at, FaultKind.BLACK_HOLE, instance, duration(random, 200, 4500, at, end), 0);
		}
		if (pick < 7) {
			return new Fault(at, FaultKind.LATENCY, instance, duration(random, 500, 4000, at, end),
					20 + random.nextInt(300));
		}
		return new Fault(at, FaultKind.RESET_AFTER_FORWARD, instance, 0, 0);
	}

	private static Fault serverFault(Random random, long at, long end, boolean mayKill) {
		int pick = random.nextInt(mayKill ? 7 : 6);
		if (pick < 3) {
			return new Fault(at, FaultKind.CLIENT_KILL, -1, 0, 0);
		}
		if (pick < 6) {
			return new Fault(at, FaultKind.CLIENT_PAUSE, -1, duration(random, 200, 2500, at, end), 0);
		}
		return new Fault(at, FaultKind.REDIS_KILL, -1, duration(random, 200, 1500, at, end), 0);
	}

	private static long duration(Random random, int min, int max, long at, long end) {
		return Math.max(1, Math.min(min + random.nextInt(max - min), end - at));
	}

	long seed() {
		return this.seed;
	}

	List<Fault> track(int instance) {
		return this.faults.stream().filter((fault) -> fault.instance() == instance).toList();
	}

	String describe() {
		StringBuilder text = new StringBuilder("Fault timeline of seed " + this.seed + " (" + this.faults.size()
				+ " faults):\n");
		this.faults.forEach((fault) -> text.append("  ").append(fault.describe()).append('\n'));
		return text.toString();
	}

}
