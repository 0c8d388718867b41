package dev.baton.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import dev.baton.lock.redis.RedisLockManager;
import org.jspecify.annotations.Nullable;

/**
 * Applies a {@link FaultSchedule}: one thread per track sleeps until each fault, applies it,
 * and ends it after its duration. What was applied, and when, goes to the {@link Timeline} and to
 * {@link #injected()}, from which the kills of Redis are windows, since they excuse what Redis forgot.
 */
final class FaultInjector {

	private final FaultSchedule schedule;

	private final List<HarnessInstance> instances;

	private final List<InstanceProxies> proxies;

	private final ServerFaults server;

	private final Timeline timeline;

	/**
	 * How long a restarted lock manager's shutdown waits for its leases, as an application's
	 * shutdown phase would: past every hold and wait of the lock workload, so that reaching it means
	 * a lease nobody releases.
	 */
	private static final Duration LOCKS_SHUTDOWN_BOUND = Duration.ofSeconds(10);

	private final List<long[]> consumerStops = new CopyOnWriteArrayList<>();

	private final List<LockShutdown> lockShutdowns = new CopyOnWriteArrayList<>();

	/** Every fault injected, applied or not, with when it was under way: what excuses a lock key left behind. */
	private final List<Applied> injected = new CopyOnWriteArrayList<>();

	/** A hand-off in line on an instance's lock manager (a holder and a waiter of it), or {@code null}. */
	private final IntFunction<@Nullable String> handOffInLine;

	private final List<Thread> tracks = new ArrayList<>();

	private final AtomicInteger applied = new AtomicInteger();

	private final @Nullable ChildLockInstance child;

	/**
	 * @param instances the instances, by index; their proxies take the link faults, where they
	 * have them (not when they reach Redis directly)
	 * @param server what applies the faults of the server track
	 * @param handOffInLine describes a holder of an instance's lock manager that another of its
	 * callers waits for, or returns {@code null}: a restart waits for such a moment
	 * @param child the child JVM that the track after the instances' pauses, or {@code null}
	 */
	FaultInjector(FaultSchedule schedule, List<HarnessInstance> instances, ServerFaults server, Timeline timeline,
			IntFunction<@Nullable String> handOffInLine, @Nullable ChildLockInstance child) {
		this.schedule = schedule;
		this.child = child;
		this.handOffInLine = handOffInLine;
		this.instances = instances;
		this.proxies = instances.stream()
			.map((instance) -> instance.proxies)
			.filter((proxies) -> !proxies.isEmpty())
			.toList();
		this.server = server;
		this.timeline = timeline;
	}

	void start() {
		int childTracks = (this.child != null) ? 1 : 0;
		for (int track = -1; track < this.instances.size() + childTracks; track++) {
			List<Fault> faults = this.schedule.track(track);
			Thread thread = new Thread(() -> faults.forEach(this::inject), "harness-faults-" + track);
			thread.setDaemon(true);
			this.tracks.add(thread);
			thread.start();
		}
	}

	/** Waits for every track to end, then heals every proxy. */
	void awaitEndAndHeal(Duration atMost) throws InterruptedException {
		long deadline = System.nanoTime() + atMost.toNanos();
		for (Thread track : this.tracks) {
			track.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
		}
		this.proxies.forEach(InstanceProxies::heal);
		this.timeline.record(Timeline.FAULT, this.proxies.isEmpty() ? "faults ended" : "all proxies healed");
	}

	/** Windows, {start, end} in ms from the run's start, in which Redis was killed and came back empty. */
	List<long[]> kills() {
		return this.injected.stream()
			.filter((applied) -> applied.fault().kind() == FaultKind.REDIS_KILL)
			.map((applied) -> new long[] { applied.startMillis(), applied.endMillis() })
			.toList();
	}

	/**
	 * The consumer restarts, {instance, start, end} in ms from the run's start: from when the
	 * consumer began to stop (its running handlers finishing or handed back) until it started again.
	 */
	List<long[]> consumerStops() {
		return this.consumerStops;
	}

	/**
	 * When each instance could not reach Redis: the windows of the faults applied to its link and to
	 * the server (from the start of each until it was undone, a freeze until the cluster was ok
	 * again, and Lettuce's reconnect after it), the topology's own (a failover's), and the JVM's stalls.
	 */
	Outages outages(List<Outages.Window> topology, Stalls stalls) {
		List<Outages.Window> windows = new ArrayList<>(topology);
		windows.addAll(windows(this.injected));
		stalls.windows().forEach((stall) -> windows.add(new Outages.Window(-1, stall[0], stall[1])));
		return new Outages(windows);
	}

	/**
	 * The windows of the faults timed here. One that refuses connections lasts until Lettuce's next
	 * reconnect attempt: its waits double up to {@link InstanceProxies#MAX_RECONNECT_DELAY}, so the
	 * attempt comes at most the fault's duration, or that cap, after it is undone. A reset armed
	 * meanwhile resets that attempt's handshake, and the next one comes up to the cap later.
	 */
	static List<Outages.Window> windows(List<Applied> injected) {
		List<Outages.Window> windows = new ArrayList<>();
		for (Applied applied : injected) {
			Fault fault = applied.fault();
			if (!fault.kind().timedHere()) {
				continue;
			}
			long end = reconnectedMillis(applied);
			if (fault.kind() == FaultKind.RESET_AFTER_FORWARD) {
				for (Applied refusing : injected) {
					if (refusing.fault().kind().refusesConnections() && (refusing.fault().instance() == -1
							|| refusing.fault().instance() == fault.instance())
							&& refusing.startMillis() <= applied.startMillis()
							&& applied.startMillis() <= reconnectedMillis(refusing)) {
						end = Math.max(end, reconnectedMillis(refusing) + InstanceProxies.MAX_RECONNECT_DELAY.toMillis());
					}
				}
			}
			windows.add(new Outages.Window(fault.instance(), applied.startMillis(), end, false,
					fault.kind().oneNodeOnly() ? fault.node() : -1));
		}
		return windows;
	}

	private static long reconnectedMillis(Applied applied) {
		if (!applied.fault().kind().refusesConnections()) {
			return applied.undoneMillis();
		}
		long lasted = applied.undoneMillis() - applied.startMillis();
		return applied.undoneMillis() + Math.min(lasted, InstanceProxies.MAX_RECONNECT_DELAY.toMillis());
	}

	/** When each instance's requests could be held back and still run later ({@link FaultKind#holdsRequests}). */
	Outages heldRequests() {
		return new Outages(this.injected.stream()
			.filter((applied) -> applied.fault().kind().holdsRequests())
			.map((applied) -> new Outages.Window(applied.fault().instance(), applied.startMillis(),
					applied.undoneMillis()))
			.toList());
	}

	int applied() {
		return this.applied.get();
	}

	private void inject(Fault fault) {
		sleepUntil(fault.atMillis());
		this.timeline.record(Timeline.FAULT, "start " + fault.describe().trim());
		long start = this.timeline.now();
		try {
			apply(fault);
			this.applied.incrementAndGet();
		}
		catch (RuntimeException ex) {
			this.timeline.record(Timeline.FAULT, "could not apply " + fault.kind() + ": " + ex
					+ ((ex.getCause() != null) ? ", caused by " + ex.getCause() : ""));
		}
		// Kept even if it could not be applied: it may have been, in part.
		this.injected.add(new Applied(fault, start, this.timeline.now()));
	}

	private void apply(Fault fault) {
		switch (fault.kind()) {
			case CUT -> during(fault, proxy(fault)::cut);
			case BLACK_HOLE -> during(fault, proxy(fault)::blackHole);
			case LATENCY -> during(fault, () -> proxy(fault).latency(Duration.ofMillis(fault.latencyMillis())));
			case RESET_AFTER_FORWARD -> proxy(fault).dropNextReplyAndReset();
			case CONSUMER_RESTART -> restartConsumer(fault);
			case LOCKS_RESTART -> restartLocks(fault);
			case INSTANCE_RESTART -> restartInstance(fault);
			case JVM_PAUSE -> pauseChild(fault);
			default -> this.server.apply(fault, this::sleepUntil);
		}
	}

	private void during(Fault fault, Runnable start) {
		InstanceProxies proxy = proxy(fault);
		start.run();
		sleepUntil(fault.endMillis());
		proxy.heal();
		this.timeline.record(Timeline.FAULT, "end " + fault.kind() + " " + fault.target());
	}

	private void pauseChild(Fault fault) {
		try {
			Objects.requireNonNull(this.child, "a JVM pause without a child JVM").pause(Duration.ofMillis(fault.durationMillis()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.timeline.record(Timeline.FAULT, "end " + fault.kind() + " " + fault.target());
	}

	private void restartConsumer(Fault fault) {
		HarnessInstance instance = this.instances.get(fault.instance());
		consumerStopped(fault.instance(), () -> {
			instance.stopConsuming();
			this.timeline.record(Timeline.FAULT, "consumer of " + fault.target() + " stopped");
			sleepUntil(fault.endMillis());
			instance.startConsuming();
		});
		this.timeline.record(Timeline.FAULT, "end " + fault.kind() + " " + fault.target() + ": consumer started");
	}

	/** Records a stop of the instance's consumer, for the checks: from now until {@code stopping} returned. */
	private void consumerStopped(int instance, Runnable stopping) {
		long[] stop = { instance, this.timeline.now(), Long.MAX_VALUE };
		this.consumerStops.add(stop);
		stopping.run();
		stop[2] = this.timeline.now();
	}

	/**
	 * A new lock manager for the instance, and the old one shut down as the application's shutdown
	 * does it (LockManagerShutdown): it waits until all is released, within a bound, then closes.
	 * Within the fault's duration it waits for a hand-off in line on the old manager, the moment
	 * a shutdown can close a manager under a waiter it is handing the lock to.
	 */
	private void restartLocks(Fault fault) {
		String handOff = awaitHandOffInLine(fault);
		this.timeline.record(Timeline.FAULT, "restarting the lock manager of " + fault.target()
				+ ((handOff != null) ? " at a hand-off in line: " + handOff : ", no hand-off in line"));
		shutDown(this.instances.get(fault.instance()).replaceLocks(), fault);
	}

	/**
	 * A new application for the instance, and the old one shut down in the order of Spring's
	 * phases: its consumer (a consumer stop, for the checks), its lock manager as
	 * {@link #restartLocks} does it, then its queues and connection factory.
	 */
	private void restartInstance(Fault fault) {
		HarnessInstance.Retired old = this.instances.get(fault.instance()).redeploy();
		this.timeline.record(Timeline.FAULT, fault.target() + " deployed anew; the old application stops");
		// The old consumer ran until now (a new application may take seconds to start): its stop begins here
		consumerStopped(fault.instance(), old::stopConsuming);
		shutDown(old.locks, fault);
		old.close();
		this.timeline.record(Timeline.FAULT, "end " + fault.kind() + " " + fault.target() + ": old application closed");
	}

	/** Shuts a replaced lock manager down as the application's shutdown does: all released (within a bound), closed. */
	private void shutDown(RedisLockManager old, Fault fault) {
		boolean released;
		try {
			old.allReleased().get(LOCKS_SHUTDOWN_BOUND.toMillis(), TimeUnit.MILLISECONDS);
			released = true;
		}
		catch (TimeoutException | ExecutionException ex) {
			released = false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			released = false;
		}
		this.lockShutdowns.add(new LockShutdown(old, this.timeline.now(), released));
		old.close();
		this.timeline.record(Timeline.FAULT, "end " + fault.kind() + " " + fault.target() + ": old lock manager closed"
				+ (released ? " once all was released" : " with leases still held (bound reached)"));
	}

	private @Nullable String awaitHandOffInLine(Fault fault) {
		while (true) {
			String handOff = this.handOffInLine.apply(fault.instance());
			if (handOff != null || this.timeline.now() >= fault.endMillis()) {
				return handOff;
			}
			Pause.millis(1);
		}
	}

	/** Every fault the tracks injected, in the order they ended, with when each was under way. */
	List<Applied> injected() {
		return this.injected;
	}

	/**
	 * A fault as the injector applied it.
	 * @param fault the fault of the schedule
	 * @param startMillis when the injector began to apply it, ms from the run's start
	 * @param endMillis when the injector was done with it (an instant fault: applied), ms from the
	 * run's start
	 */
	record Applied(Fault fault, long startMillis, long endMillis) {

		/**
		 * When the fault was undone: it lasts its duration even when Redis undoes it itself, and
		 * the injector's call returns at once ({@code CLIENT PAUSE}).
		 */
		long undoneMillis() {
			return Math.max(this.endMillis, this.startMillis + this.fault.durationMillis());
		}

	}

	/** The lock managers restarts closed: when each closed, and whether all it granted was released by then. */
	List<LockShutdown> lockShutdowns() {
		return this.lockShutdowns;
	}

	/**
	 * A lock manager closed by a restart.
	 * @param manager the manager, for its identity
	 * @param atMillis when it closed, ms from the run's start
	 * @param released whether its allReleased() had completed
	 */
	record LockShutdown(Object manager, long atMillis, boolean released) {

	}

	private InstanceProxies proxy(Fault fault) {
		return this.proxies.get(fault.instance());
	}

	private void sleepUntil(long atMillis) {
		long wait = atMillis - this.timeline.now();
		if (wait > 0) {
			try {
				Thread.sleep(wait);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
