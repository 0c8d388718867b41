package dev.baton.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.redis.RedisDelayQueues;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One run of the harness for one seed: a fresh Redis ({@link HarnessTopology}: standalone, each
 * instance behind its own proxy, a Sentinel set, or a Cluster), {@value #INSTANCES} instances (and,
 * where the topology has one, a lock instance in a child JVM), the lock and queue workloads during
 * the fault phase, then healing, draining and the checks.
 */
final class HarnessRun {

	static final int INSTANCES = 3;

	private static final int LOCK_THREADS_PER_INSTANCE = 3;

	private static final int ANNOTATED_THREADS_PER_INSTANCE = 2;

	/** Threads per instance that hand a lease over to a random instance mid-section ({@link HandOverWorker}). */
	private static final int HAND_OVER_THREADS_PER_INSTANCE = 1;

	/** Allowed beyond a call's wait and command timeout: two shared cores under this load pause threads. */
	private static final Duration SLACK = Duration.ofMillis(1500);

	private static final Logger logger = LoggerFactory.getLogger(HarnessRun.class);

	private final long seed;

	private final Duration faultPhase;

	private final Timeline timeline = new Timeline();

	private final Violations violations = new Violations(this.timeline);

	private final LossReports losses = new LossReports(this.timeline);

	private final Stalls stalls = new Stalls(this.timeline);

	private final TaskLedger ledger = new TaskLedger();

	private final Function<Timeline, HarnessTopology> topology;

	/** A run against a standalone Redis. */
	HarnessRun(long seed, Duration faultPhase) {
		this(seed, faultPhase, StandaloneTopology::new);
	}

	/**
	 * @param topology starts the Redis of the run, given the run's timeline
	 */
	HarnessRun(long seed, Duration faultPhase, Function<Timeline, HarnessTopology> topology) {
		this.seed = seed;
		this.faultPhase = faultPhase;
		this.topology = topology;
	}

	HarnessReport run() throws InterruptedException {
		List<HarnessInstance> instances = new ArrayList<>();
		try (HarnessTopology topology = this.topology.apply(this.timeline);
				RedisDelayQueues checkerQueues = RedisDelayQueues.builder(topology.checker(), JsonMapper.builder().build())
					.partitions((name) -> topology.partitionNodes().partitions())
					.build()) {
			FaultSchedule schedule = topology.schedule(this.seed, INSTANCES, this.faultPhase.toMillis());
			logger.info("Harness seed {}, {} of faults\n{}", this.seed, this.faultPhase, schedule.describe());
			ChildLockInstance child = null;
			try {
				DelayQueue<HarnessTask> observer = checkerQueues.get(HarnessInstance.QUEUE, HarnessTask.class);
				for (int i = 0; i < INSTANCES; i++) {
					instances.add(new HarnessInstance(i, topology.connect(i), topology.partitionNodes().partitions(),
							topology.visibility(), this.losses, this.ledger, this.timeline, observer));
				}
				if (!topology.childRedis().isEmpty()) {
					child = ChildLockInstance.launch(topology.childRedis(), this.seed, INSTANCES, this.losses,
							this.timeline);
				}
				return run(schedule, topology, new StringRedisTemplate(topology.checker()), instances, child,
						checkerQueues.get(HarnessInstance.QUEUE, HarnessTask.class));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			finally {
				instances.forEach(HarnessInstance::close);
				if (child != null) {
					child.close();
				}
			}
		}
	}

	private HarnessReport run(FaultSchedule schedule, HarnessTopology topology, StringRedisTemplate redis,
			List<HarnessInstance> instances, @Nullable ChildLockInstance child, DelayQueue<HarnessTask> checkerQueue)
			throws InterruptedException, IOException {
		List<Supplier<RedisLockManager>> managers = instances.stream()
			.<Supplier<RedisLockManager>>map((instance) -> instance::locks)
			.toList();
		LockKeyReader keys = new LockKeyReader(redis);
		LockWorkload locks = new LockWorkload(this.timeline, this.violations, this.stalls,
				HarnessInstance.COMMAND_TIMEOUT, SLACK, keys);
		FaultInjector faults = new FaultInjector(schedule, instances, topology.serverFaults(), this.timeline,
				locks::handOffInLine, child);
		LockWorkload annotated = new LockWorkload(this.timeline, this.violations, this.stalls,
				HarnessInstance.COMMAND_TIMEOUT, SLACK, keys);
		instances.forEach(HarnessInstance::startConsuming);
		long until = this.faultPhase.toMillis();
		CallBounds queueCalls = new CallBounds(QueueChecks.BOUNDED, HarnessInstance.QUEUE_COMMAND_TIMEOUT, SLACK,
				this.violations, this.timeline, this.stalls);
		List<Supplier<DelayQueue<HarnessTask>>> queues = instances.stream()
			.<Supplier<DelayQueue<HarnessTask>>>map((instance) -> instance::queue)
			.toList();
		TaskProducer tasks = new TaskProducer(queues,
				this.ledger, this.timeline, queueCalls, until, this.seed);
		Thread producer = new Thread(tasks, "harness-producer");
		producer.setDaemon(true);

		QueueWatch watch = new QueueWatch(redis, topology.partitionNodes().partitions(), topology.visibility(),
				this.timeline);
		this.timeline.zero();
		this.stalls.start();
		watch.start();
		faults.start();
		locks.start(managers, LOCK_THREADS_PER_INSTANCE, until, this.seed);
		locks.startHandOvers(managers, HAND_OVER_THREADS_PER_INSTANCE, until, this.seed);
		locks.startInterrupts(until, this.seed);
		if (child != null) {
			locks.startSharedWithChild(managers, until, this.seed);
			child.start(locks, until);
		}
		annotated.startAnnotated(managers, ANNOTATED_THREADS_PER_INSTANCE, HarnessInstance.COMMAND_TIMEOUT, until,
				this.seed);
		producer.start();
		queueCalls.watch();
		faults.awaitEndAndHeal(this.faultPhase.plusSeconds(10));
		locks.await(Duration.ofSeconds(10));
		annotated.await(Duration.ofSeconds(5));
		if (child != null) {
			child.awaitDone(Duration.ofSeconds(10));
		}
		producer.join(10_000);
		queueCalls.stopWatching();
		this.stalls.stop();

		List<long[]> dataLoss = topology.dataLoss(faults);
		LockChecks lockChecks = new LockChecks(locks, this.losses, dataLoss, HarnessInstance.LEASE_TIME);
		lockChecks.checkNothingLeft(instances.stream().map(HarnessInstance::locks).toList(), redis);
		// Loss reports arrive within a renewal period; by now every one has.
		lockChecks.checkHistory();
		lockChecks.checkShutdowns(faults.lockShutdowns());
		lockChecks.checkRefusals(faults.injected());
		LockChecks annotatedChecks = new LockChecks(annotated, this.losses, dataLoss, HarnessInstance.LEASE_TIME);
		annotatedChecks.checkHistory();
		annotatedChecks.checkRefusals(faults.injected());
		QueueChecks queueChecks = new QueueChecks(this.ledger, dataLoss, topology.visibility(), this.violations,
				this.timeline);
		queueChecks.consumerStops(faults.consumerStops());
		Outages outages = faults.outages(topology.outages(), this.stalls);
		queueChecks.outages(outages);
		queueChecks.heldRequests(faults.heldRequests());
		// Longer without progress than a visibility timeout (10 s on a Cluster) and a retry's backoff.
		queueChecks.drain(checkerQueue, Duration.ofSeconds(20), Duration.ofSeconds(120));
		watch.stop();
		instances.forEach(HarnessInstance::stopConsuming);
		queueChecks.check();
		VisibilityChecks visibilityChecks = new VisibilityChecks(this.ledger, outages, faults.consumerStops(),
				topology.visibility(), this.violations);
		visibilityChecks.check(watch.nearDeadlines());
		visibilityChecks.checkLossesTold(dataLoss);
		ProgressChecks progress = new ProgressChecks(this.ledger, outages, faults.consumerStops(),
				topology.partitionNodes(), topology.visibility(), INSTANCES, this.violations);
		progress.check(watch.waiting(), watch.nearDeadlines());

		List<String> totals = new ArrayList<>(List.of(
				faults.applied() + " faults applied over " + this.faultPhase.toMillis() + " ms; " + this.stalls.count()
						+ " stalls of the harness JVM, the longest " + this.stalls.longest() + " ms",
				"locks: " + lockChecks.summary() + ((child != null) ? "; " + child.summary() : ""),
				"@DistributedLock methods: " + annotatedChecks.summary(),
				"queue: " + tasks.summary() + ", " + queueChecks.summary() + ", " + stale(instances) + "; "
						+ visibilityChecks.summary() + "; " + progress.summary() + " (" + topology.partitionNodes().describe()
						+ ")"));
		totals.addAll(topology.totals(this.ledger));
		HarnessReport report = new HarnessReport(schedule, this.violations.all(), totals, this.timeline,
				topology.seedsProperty(), faults.applied());
		logger.info(report.describe());
		return report;
	}

	/** What Baton itself counted of stale deliveries, beside the duplicates the handlers saw. */
	private static String stale(List<HarnessInstance> instances) {
		return "baton.queue.stale " + (long) instances.stream()
			.mapToDouble((instance) -> instance.count("baton.queue.stale"))
			.sum();
	}

}
