package dev.baton.harness;

import java.util.List;


import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis a harness run uses: how its instances and checks connect to it, which faults its
 * schedule draws and how they are applied, and what data loss the docs let it excuse.
 */
interface HarnessTopology extends AutoCloseable {

	/** The run's fault timeline. */
	FaultSchedule schedule(long seed, int instances, long lengthMillis);

	/** How an instance connects: a started connection factory of its own, and its proxy if it has one. */
	Link connect(int instance);

	/** A started connection factory for the checks and observers, through no proxy; closed with the topology. */
	LettuceConnectionFactory checker();

	/** How the harness queue is partitioned, and where each partition lives. */
	/** The harness queue's visibility timeout on this topology. */
	default Visibility visibility() {
		return Visibility.SHORT;
	}

	default PartitionNodes partitionNodes() {
		return PartitionNodes.SINGLE;
	}

	/**
	 * Where a {@link ChildLockInstance} finds Redis, as {@link ChildLockProcess} takes it, if the
	 * topology runs one (empty if not): its schedule then pauses it on the track after the
	 * instances'.
	 */
	default List<String> childRedis() {
		return List.of();
	}

	/** What applies the faults of the schedule's server track. */
	ServerFaults serverFaults();

	/**
	 * Windows, {start, end} in ms from the run's start, in which the docs let Redis forget what it
	 * acknowledged: they excuse lost tasks, and overlapping or refused lock holders.
	 */
	List<long[]> dataLoss(FaultInjector faults);

	/**
	 * Times Redis was out of reach that the topology measures itself, beyond what the fault
	 * injector times (see {@link FaultKind#timedHere()}).
	 */
	default List<Outages.Window> outages() {
		return List.of();
	}

	/** Lines of the report's totals about the topology's own faults. */
	List<String> totals(TaskLedger ledger);

	/** The system property that runs other seeds on this topology, for the report's replay hint. */
	default String seedsProperty() {
		return "baton.harness.seeds";
	}

	@Override
	void close();

	/**
	 * @param configuration where the instance's connection factories connect
	 * @param proxies the proxies it connects through (none on Sentinel), which the instance closes
	 */
	record Link(RedisConfiguration configuration, InstanceProxies proxies) {

	}

}
