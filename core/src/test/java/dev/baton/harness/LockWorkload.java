package dev.baton.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.annotation.DistributedLockAdvisor;
import dev.baton.lock.redis.RedisLockManager;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.ProxyFactory;

/**
 * Several threads per instance contending for a few lock names, each critical section guarding
 * a {@link FencedRegister} and an {@link UnfencedCounter}. What they saw is checked afterwards
 * by {@link LockChecks}.
 */
final class LockWorkload {

	static final List<String> NAMES = List.of("ledger", "report", "settlement:1");

	/** The lock that the child JVM's workers take ({@link ChildLockProcess}), and one worker of each instance. */
	static final String CHILD_NAME = "shared-with-child";

	final Timeline timeline;

	final Violations violations;

	final CallBounds bounds;

	final FencedRegister register;

	final UnfencedCounter counter;

	final List<Hold> holds = new CopyOnWriteArrayList<>();

	final AtomicLong unavailable = new AtomicLong();

	final AtomicLong unconfirmedReleases = new AtomicLong();

	/** Leases handed over by {@link HandOverWorker}s, the restores that found the lock gone, and second restores. */
	final AtomicLong handedOver = new AtomicLong();

	final AtomicLong restoredInvalid = new AtomicLong();

	final AtomicLong restoredTwice = new AtomicLong();

	/** Reads lock keys for the liveness check; shared by the workloads, as they share managers. */
	final LockKeyReader keys;

	/** Every call on a lock, for the liveness check's excuses. */
	final List<LockUse> uses = new CopyOnWriteArrayList<>();

	/** The calls under way, by caller, which names their holds too. */
	private final Map<String, LockUse> usesByCaller = new ConcurrentHashMap<>();

	/** Acquisitions refused whose key could be read right after. */
	final List<RefusedAcquisition> refusals = new CopyOnWriteArrayList<>();

	/** Refused acquisitions whose key Redis did not let the checker read in time. */
	final AtomicLong refusalsUnread = new AtomicLong();

	private final List<Thread> threads = new ArrayList<>();

	/** The threads whose every Baton call, and nothing else, {@link #bounds} wraps: they may be interrupted. */
	private final List<Thread> interruptible = new ArrayList<>();

	/** Where asynchronous {@code @DistributedLock} methods run their bodies. */
	private final ExecutorService async = Executors.newCachedThreadPool((runnable) -> {
		Thread thread = new Thread(runnable, "harness-annotated-async");
		thread.setDaemon(true);
		return thread;
	});

	LockWorkload(Timeline timeline, Violations violations, Stalls stalls, Duration commandTimeout, Duration slack,
			LockKeyReader keys) {
		this.timeline = timeline;
		this.keys = keys;
		this.violations = violations;
		this.bounds = new CallBounds(LockChecks.BOUNDED, commandTimeout, slack, violations, timeline, stalls);
		this.register = new FencedRegister(timeline);
		this.counter = new UnfencedCounter(timeline);
	}

	void start(List<Supplier<RedisLockManager>> managers, int threadsPerInstance, long untilMillis, long seed) {
		this.bounds.watch();
		for (int instance = 0; instance < managers.size(); instance++) {
			for (int thread = 0; thread < threadsPerInstance; thread++) {
				String holder = "instance-" + instance + "/t" + thread;
				startInterruptible(new LockWorker(holder, instance, managers.get(instance), NAMES, this, untilMillis,
						seed * 1_000 + instance * 100 + thread), "harness-lock-" + instance + "-" + thread);
			}
		}
	}

	/**
	 * Starts threads that hand their leases over and restore them on a random instance
	 * ({@link HandOverWorker}).
	 */
	void startHandOvers(List<Supplier<RedisLockManager>> managers, int threadsPerInstance, long untilMillis, long seed) {
		for (int instance = 0; instance < managers.size(); instance++) {
			for (int thread = 0; thread < threadsPerInstance; thread++) {
				String holder = "instance-" + instance + "/h" + thread;
				startInterruptible(new HandOverWorker(holder, instance, managers, NAMES, this, untilMillis,
						seed * 1_000 + 700 + instance * 100 + thread), "harness-handover-" + instance + "-" + thread);
			}
		}
	}

	/**
	 * Starts a worker per instance on {@link #CHILD_NAME}, which the child JVM's workers take too:
	 * when a pause freezes a child holder past its lease, one of them takes the lock. They rest
	 * between rounds, so that the child's workers get the lock too, and are not interrupted, so
	 * that the interrupts of a seed stay as they were.
	 */
	void startSharedWithChild(List<Supplier<RedisLockManager>> managers, long untilMillis, long seed) {
		for (int instance = 0; instance < managers.size(); instance++) {
			LockWorker rounds = new LockWorker("instance-" + instance + "/c", instance, managers.get(instance),
					List.of(CHILD_NAME), this, untilMillis, seed * 67 + 19 + instance).restingUpTo(600);
			startWorker(rounds, "harness-lock-child-" + instance);
		}
	}

	/** Starts a worker whose every Baton call, and nothing else, {@link #bounds} wraps. */
	private void startInterruptible(Runnable work, String name) {
		this.interruptible.add(startWorker(work, name));
	}

	/** Starts a worker that {@link #await} waits for. */
	private Thread startWorker(Runnable work, String name) {
		Thread worker = new Thread(work, name);
		worker.setDaemon(true);
		this.threads.add(worker);
		worker.start();
		return worker;
	}

	/**
	 * Starts a thread that interrupts a random worker in a lock call every 100 to 1,000 ms (one
	 * that is not in a call then is left alone), as {@code Future.cancel(true)} or an executor's
	 * {@code shutdownNow()} does: the call must keep the interrupt ({@link CallBounds}), hold
	 * nothing it does not hand back (the checks after the run), and end within its bound.
	 */
	void startInterrupts(long untilMillis, long seed) {
		Random random = new Random(seed * 53 + 7);
		Thread interrupter = new Thread(() -> {
			while (this.timeline.now() < untilMillis) {
				Pause.millis(100 + random.nextInt(900));
				Thread worker = this.interruptible.get(random.nextInt(this.interruptible.size()));
				if (this.bounds.interruptIfInCall(worker)) {
					this.timeline.record("locks", worker.getName() + " interrupted");
				}
			}
		}, "harness-interrupter");
		interrupter.setDaemon(true);
		interrupter.start();
	}

	/**
	 * Starts threads that call {@code @DistributedLock} methods instead: per instance, an
	 * {@link AnnotatedSections} proxied with Baton's advisor over that instance's manager, locking
	 * {@code annotated:<name>} for the same few names.
	 */
	void startAnnotated(List<Supplier<RedisLockManager>> managers, int threadsPerInstance, Duration commandTimeout,
			long untilMillis, long seed) {
		this.bounds.watch();
		for (int instance = 0; instance < managers.size(); instance++) {
			Supplier<RedisLockManager> manager = managers.get(instance);
			ProxyFactory factory = new ProxyFactory(new AnnotatedSections(this, this.async));
			factory.setProxyTargetClass(true);
			factory.addAdvisor(new DistributedLockAdvisor(manager::get, Duration.ZERO));
			AnnotatedSections sections = (AnnotatedSections) factory.getProxy();
			for (int thread = 0; thread < threadsPerInstance; thread++) {
				String holder = "instance-" + instance + "/a" + thread;
				startWorker(new AnnotatedLockWorker(holder, instance, manager, sections, NAMES, this, commandTimeout,
						untilMillis, seed * 1_000 + 500 + instance * 100 + thread), "harness-annotated-" + instance + "-" + thread);
			}
		}
	}

	/** Waits for the workers; one still running after {@code atMost} is a violation of the call bounds. */
	void await(Duration atMost) throws InterruptedException {
		long deadline = System.nanoTime() + atMost.toNanos();
		for (Thread thread : this.threads) {
			thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
			if (thread.isAlive()) {
				this.violations.add("locks", LockChecks.BOUNDED,
						thread.getName() + " still running " + atMost.toSeconds() + " s after the end of the faults, in:\n"
								+ CallBounds.stackOf(thread));
			}
		}
		this.bounds.stopWatching();
		this.async.shutdown();
	}

	void enter(Hold hold) {
		this.holds.add(hold);
		// A @DistributedLock call learns of its grant only in the body: the hold is named as its call.
		LockUse use = this.usesByCaller.get(hold.holder);
		if (use != null) {
			use.granted(hold.startMillis);
		}
		this.timeline.record(hold.name, hold.holder + " entered with token " + hold.token);
		this.counter.enter(hold);
	}

	/** A call on a lock begins: its owner may be in the key from now until {@link #end}. */
	LockUse begin(String caller, String name, int instance) {
		LockUse use = new LockUse(caller, name, instance, this.timeline.now());
		this.uses.add(use);
		this.usesByCaller.put(caller, use);
		return use;
	}

	/**
	 * A call of the instance that holds a lock another of its calls waits for, as
	 * "holder, waiter", or {@code null}: when it releases, its lock manager hands the lock over.
	 */
	@Nullable String handOffInLine(int instance) {
		List<LockUse> calls = this.usesByCaller.values().stream().filter((use) -> use.instance == instance).toList();
		for (LockUse holder : calls) {
			if (holder.grantedMillis == Long.MAX_VALUE) {
				continue;
			}
			for (LockUse waiter : calls) {
				if (waiter.name.equals(holder.name) && waiter.grantedMillis == Long.MAX_VALUE) {
					return holder + ", " + waiter;
				}
			}
		}
		return null;
	}

	void end(LockUse use) {
		use.endMillis = this.timeline.now();
		this.usesByCaller.remove(use.caller);
	}

	/**
	 * The acquisition of a call was refused: reads the lock's key right away, while whatever put
	 * an owner there still holds it, and keeps what it found for {@link LockChecks#checkRefusals}.
	 */
	void refused(LockUse use, Object manager) {
		long at = this.timeline.now();
		LockKeyReader.Read read = this.keys.read(use.name);
		if (read == null) {
			this.refusalsUnread.incrementAndGet();
			return;
		}
		this.refusals.add(new RefusedAcquisition(use, manager, at, this.timeline.now(), read.value()));
		if (this.keys.isOwnerOf(manager, read.value())) {
			// Few: the events a violation of the liveness check is read by.
			this.timeline.record(use.name, use.caller + " refused, the key holding " + read.value()
					+ ", an owner of its own lock manager");
		}
	}

	/**
	 * A critical section of a holder that knows its fencing token: enters, writes to the register,
	 * holds, writes again, and notes whether the lease was still valid at the end.
	 */
	Hold section(Hold hold, long holdMillis, BooleanSupplier valid) {
		enter(hold);
		this.keys.learn(hold.grantedBy, hold.name, valid);
		this.register.write(hold);
		Pause.millis(holdMillis);
		this.register.write(hold);
		hold.lostAtEnd = !valid.getAsBoolean();
		exit(hold);
		return hold;
	}

	/**
	 * Runs a release; one Redis did not confirm is documented (Baton retries it until the lease
	 * runs out), so it is counted, and the call's owner may stay in the key meanwhile.
	 */
	void releaseQuietly(LockUse use, Runnable release) {
		try {
			release.run();
		}
		catch (LockUnavailableException ex) {
			use.replyLost = true;
			this.unconfirmedReleases.incrementAndGet();
			this.timeline.record(use.name, "release unconfirmed: " + ex.getMessage());
		}
	}

	void exit(Hold hold) {
		this.counter.exit(hold);
		hold.endMillis = this.timeline.now();
		this.timeline.record(hold.name, hold.holder + " left" + (hold.lostAtEnd ? ", its lock LOST" : ""));
	}

}
