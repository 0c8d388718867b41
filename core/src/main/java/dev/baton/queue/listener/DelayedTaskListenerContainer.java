package dev.baton.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.internal.Durations;
import dev.baton.internal.ObservationSettings;
import dev.baton.observation.BatonObservation;
import dev.baton.observation.DefaultTaskHandlingObservationConvention;
import dev.baton.observation.TaskHandlingContext;
import dev.baton.observation.TaskHandlingContext.Outcome;
import dev.baton.observation.TaskHandlingObservationConvention;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.Delivery;
import dev.baton.queue.TaskContext;
import dev.baton.queue.internal.ConsumableQueue;
import dev.baton.queue.internal.ConsumableQueue.Claim;
import dev.baton.queue.internal.SafeDeadLetterReason;
import dev.baton.queue.internal.PartialSettlementException;
import dev.baton.queue.listener.HandlerMetrics.StaleOperation;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Consumes one queue for one handler. A single loop thread claims at most as many tasks as there
 * are free permits (back-pressure: one per handler, plus the prefetch), puts them in line for up
 * to {@code concurrency} workers on the handler executor, and then waits for a free permit and
 * for the next due time, a wake-up from the queue or {@code maxIdlePoll}, whichever comes first;
 * after a full batch it claims again at once. While tasks are held, the visibility of all their
 * deliveries is extended in one call a third of the visibility timeout after the last extension
 * that succeeded, on a thread of this container's own; a failed one is tried again within a
 * tenth of that. Tasks claimed ahead that waited more than twice the claim-ahead time, and are
 * not expected to start soon, are handed back for other instances (handlers slowed down). Both
 * the loop and the acknowledgements survive any {@link Throwable}: they log, pause and go on.
 *
 * <p>Stopping has one deadline, {@code shutdownTimeout} from its start, or sooner if the context's
 * shutdown phase leaves less: it stops claiming (a claim that returns later hands its tasks back
 * itself), hands back the tasks that did not start, waits until the deadline for running handlers
 * and pending acknowledgements, then hands back what still runs in one call bounded by
 * {@link #HAND_BACK_TIMEOUT} and interrupts those handlers. Once stopping began, no handler
 * failure settles its task (the beans it uses may be going away): it is handed back, or left to
 * come back after its visibility timeout, never retried with an attempt counted, deleted or
 * dead-lettered.
 */
final class DelayedTaskListenerContainer {

	private static final Log logger = LogFactory.getLog(DelayedTaskListenerContainer.class);

	/** The longest wait before the loop asks Redis again after a failed claim ({@link #shortPoll()}). */
	private static final Duration SHORT_POLL = Duration.ofSeconds(1);

	/** How long a backlogged loop waits for more free permits before it claims. */
	private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

	/** How often per extension period a failed extension is tried again. */
	private static final int EXTENSION_RETRIES_PER_PERIOD = 10;

	/** The longest the final hand-back of a stop may take, whatever Redis does. */
	static final Duration HAND_BACK_TIMEOUT = Duration.ofSeconds(2);

	private final ConsumableQueue<Object> queue;

	private final DelayedTaskEndpoint endpoint;

	private final ListenerSettings settings;

	private final HandlerMethodAdapter adapter;

	private final Executor handlers;

	private final HandlerMetrics metrics;

	private final ObservationSettings<TaskHandlingObservationConvention> observations;

	/** One per task this container may hold: its concurrency plus its prefetch. */
	private final Semaphore permits;

	/** Claimed deliveries waiting for a worker, in due order. */
	private final Queue<Delivery<Object>> ready = new ConcurrentLinkedQueue<>();

	/** Workers started on the handler executor, at most the concurrency. */
	private final AtomicInteger workers = new AtomicInteger();

	/** Handler failures, each kind with its stack trace once a minute. */
	private final FailureLog failures = new FailureLog(logger, Duration.ofMinutes(1));

	private final Acknowledger acknowledger;

	private final DeadLetterReason deadLetterReason;

	private final DeliveryLimit deliveryLimit;

	/** Whether the last claim left due tasks behind; only the loop thread reads and writes it. */
	private boolean backlog;

	/**
	 * A moving average of how long the handler takes, in nanoseconds, 0 before the first run:
	 * how many tasks may be claimed ahead follows from it. Workers update it without a lock: a
	 * lost update only delays the average by one run.
	 */
	private volatile long handlingNanos;

	/** Whether the loop waits for a task to finish before it claims more. */
	private volatile boolean awaitingRoom;

	/** Every claimed delivery until it is settled or handed back: waiting, running or acknowledging. */
	private final Map<Delivery<Object>, Held> held = new ConcurrentHashMap<>();

	/** The deliveries whose handler runs, at most the concurrency. */
	private final Set<Held> running = ConcurrentHashMap.newKeySet();

	/**
	 * How far the Redis server's clock is ahead of this JVM's, as of the last claim: due times are
	 * server times, so lateness is measured on the server's clock, not on a skewed local one.
	 */
	private volatile Duration serverClockAhead = Duration.ZERO;

	/** When the last claim came back, for the status. */
	private volatile @Nullable Instant lastClaim;

	/** When claims started failing in a row, as {@link System#nanoTime()}, or 0 while they succeed. */
	private volatile long failingSince;

	private final ClaimPacer pacer;

	private final DelayedTaskErrorHandler errorHandler;

	private volatile boolean active;

	private volatile @Nullable Thread loop;

	private volatile @Nullable AutoCloseable wakeSubscription;

	private @Nullable ScheduledExecutorService extender;

	/** Extensions that failed in a row; only the extender thread reads and writes it. */
	private int failedExtensions;

	/** When a handler's permit was last freed, as {@link System#nanoTime()}. */
	private volatile long permitFreed = System.nanoTime();

	/** When extensions started failing in a row, as {@link System#nanoTime()}, or 0 while they succeed. */
	private volatile long extensionsFailingSince;

	DelayedTaskListenerContainer(ConsumableQueue<Object> queue, DelayedTaskEndpoint endpoint, ListenerSettings settings,
			Executor handlers, HandlerMetrics metrics,
			ObservationSettings<TaskHandlingObservationConvention> observations, DeadLetterReason deadLetterReason,
			DelayedTaskErrorHandler errorHandler) {
		this.queue = queue;
		this.errorHandler = errorHandler;
		this.pacer = new ClaimPacer(queue::partitionCount);
		this.deadLetterReason = deadLetterReason;
		this.endpoint = endpoint;
		this.settings = settings;
		this.adapter = new HandlerMethodAdapter(endpoint.bean(), endpoint.method());
		this.handlers = handlers;
		this.metrics = metrics;
		this.observations = observations;
		this.permits = new Semaphore(endpoint.concurrency() + settings.prefetch());
		this.acknowledger = new Acknowledger(queue, endpoint.queue(), this::isStale,
				(refused) -> lost(refused, StaleOperation.ACK));
		this.deliveryLimit = new DeliveryLimit(endpoint.queue(), settings, endpoint.deadLetter(), metrics);
	}

	String queueName() {
		return this.endpoint.queue();
	}

	DelayedTaskListenerStatus status() {
		Thread thread = this.loop;
		boolean running = this.active && thread != null && thread.isAlive();
		String stall = stall();
		return new DelayedTaskListenerStatus(this.endpoint.queue(), running, this.lastClaim, running && stall == null,
				stall);
	}

	/** What has kept the container from progressing for {@code STALLED_POLLS} short polls, or null. */
	private @Nullable String stall() {
		long now = System.nanoTime();
		long stalledAfter = shortPoll().toNanos() * DelayedTaskListenerStatus.STALLED_POLLS;
		if (lasted(this.failingSince, now, stalledAfter)) {
			return "claims keep failing";
		}
		if (lasted(this.acknowledger.failingSince(), now, stalledAfter)) {
			return "acknowledgements keep failing";
		}
		if (lasted(this.extensionsFailingSince, now, stalledAfter)) {
			return "visibility extensions keep failing";
		}
		if (this.permits.availablePermits() == 0 && now - this.permitFreed > stalledAfter) {
			return "every permit is held and none was freed";
		}
		return null;
	}

	private static boolean lasted(long since, long now, long limit) {
		return since != 0 && now - since > limit;
	}

	void start() {
		this.active = true;
		this.acknowledger.start();
		subscribeToWakeUps();
		// A thread per queue: a slow extension of one queue cannot delay another's
		ScheduledExecutorService extender = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "baton-queue-visibility-" + this.endpoint.queue());
			thread.setDaemon(true);
			return thread;
		});
		this.extender = extender;
		scheduleExtension(extensionPeriodNanos());
		long claimAhead = this.settings.claimAhead().toNanos();
		if (claimAhead > 0 && this.settings.prefetch() > 0) {
			extender.scheduleWithFixedDelay(this::giveBackLongWaitingSafely, claimAhead, claimAhead,
					TimeUnit.NANOSECONDS);
		}
		this.loop = DaemonThreads.start("baton-queue-" + this.endpoint.queue(), this::run);
	}

	/**
	 * Stop claiming, hand back the tasks that did not start, wait for running handlers until the
	 * shutdown timeout, then hand back what is still running and interrupt it.
	 * @param maxWait the longest wait for running handlers, whatever the shutdown timeout: what
	 * the context's shutdown phase leaves (the beans handlers use are destroyed after it)
	 */
	void stop(Duration maxWait) {
		Duration wait = (this.settings.shutdownTimeout().compareTo(maxWait) < 0) ? this.settings.shutdownTimeout()
				: maxWait;
		long deadline = System.nanoTime() + wait.toNanos();
		this.active = false;
		wake();
		joinLoop(deadline);
		DaemonThreads.start("baton-queue-stop-" + this.endpoint.queue(), this::closeWakeSubscription);
		List<Delivery<Object>> notStarted = takeReady();
		if (!notStarted.isEmpty()) {
			// At once, so that other instances take them while handlers here finish
			DaemonThreads.start("baton-queue-hand-back-" + this.endpoint.queue(), () -> handBack(notStarted));
		}
		awaitSettled(deadline);
		this.acknowledger.close(deadline);
		List<Map.Entry<Delivery<Object>, Held>> unfinished = this.held.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().handler != null)
			.toList();
		// Handed back or left to expire: either way their outcome must not settle them
		unfinished.forEach((entry) -> entry.getValue().abandoned = true);
		stopExtending();
		if (!unfinished.isEmpty()) {
			handBackWithin(unfinished.stream().map(Map.Entry::getKey).toList(), HAND_BACK_TIMEOUT);
			unfinished.forEach((entry) -> interrupt(entry.getValue().handler));
		}
	}

	private static void interrupt(@Nullable Thread handler) {
		if (handler != null && handler != Thread.currentThread()) {
			handler.interrupt();
		}
	}

	private void stopExtending() {
		ScheduledExecutorService extender = this.extender;
		if (extender != null) {
			extender.shutdownNow();
		}
	}

	private List<Delivery<Object>> takeReady() {
		List<Delivery<Object>> taken = new ArrayList<>();
		Delivery<Object> delivery;
		while ((delivery = this.ready.poll()) != null) {
			taken.add(delivery);
			finish(delivery);
		}
		return taken;
	}

	private void handBack(List<Delivery<Object>> deliveries) {
		try {
			this.queue.handBack(deliveries);
		}
		catch (Throwable ex) {
			logger.warn("Could not hand back " + deliveries.size() + " tasks of queue '" + this.endpoint.queue()
					+ "'; they come back after the visibility timeout", ex);
		}
	}

	/** Hands back on a thread of its own, waiting at most {@code timeout} whatever Redis does. */
	private void handBackWithin(List<Delivery<Object>> deliveries, Duration timeout) {
		Thread handingBack = DaemonThreads.start("baton-queue-hand-back-" + this.endpoint.queue(),
				() -> handBack(deliveries));
		try {
			handingBack.join(timeout.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (handingBack.isAlive()) {
			logger.warn("Handing back " + deliveries.size() + " tasks of queue '" + this.endpoint.queue()
					+ "' takes longer than " + timeout + "; if it fails they come back after the visibility timeout");
		}
	}

	private void run() {
		while (this.active) {
			try {
				if (claimAndDispatch() < 0) {
					return;
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (Throwable ex) {
				// Any Throwable: a dead loop would stop consuming while the container looks running
				if (this.failingSince == 0) {
					this.failingSince = System.nanoTime();
				}
				logger.warn("Claiming from queue '" + this.endpoint.queue() + "' failed; trying again in "
						+ shortPoll().toMillis() + " ms", ex);
				awaitWakeUp(shortPoll());
			}
		}
	}

	/** One turn of the loop; returns -1 when stopped. */
	private int claimAndDispatch() throws InterruptedException {
		if (!acquirePermit()) {
			return -1;
		}
		// Set before counting, so that a task finishing meanwhile still wakes the wait below
		this.awaitingRoom = true;
		int room = this.endpoint.concurrency() + claimAhead() - this.held.size();
		if (room < 1) {
			// Handlers became slower: what is held already cannot start within the claim-ahead time
			this.permits.release();
			awaitWakeUp(this.settings.maxIdlePoll());
			this.awaitingRoom = false;
			return 0;
		}
		this.awaitingRoom = false;
		int limit = Math.min(this.settings.batchSize(), room);
		int max = 1 + drainPermits(limit - 1);
		if (this.backlog) {
			max += gatherPermits(limit - max);
		}
		long sent = System.nanoTime();
		Instant sentAt = Instant.now();
		Claim<Object> claim;
		try {
			claim = this.queue.claim(max, this.settings.visibilityTimeout());
		}
		catch (Throwable ex) {
			this.permits.release(max);
			throw ex;
		}
		Instant receivedAt = Instant.now();
		this.lastClaim = receivedAt;
		this.failingSince = 0;
		if (this.wakeSubscription == null && this.active) {
			// Redis answers again: wake-ups can be had now.
			subscribeToWakeUps();
		}
		// The server read its clock somewhere during the round trip: the midpoint is the best guess
		Instant midpoint = sentAt.plus(Duration.between(sentAt, receivedAt).dividedBy(2));
		this.serverClockAhead = Duration.between(midpoint, claim.serverTime());
		this.pacer.claimed(this.serverClockAhead, Duration.between(sentAt, receivedAt));
		List<Delivery<Object>> deliveries = this.deliveryLimit.admit(claim.deliveries());
		this.permits.release(max - deliveries.size());
		long visibleUntil = sent + this.settings.visibilityTimeout().toNanos();
		long claimed = System.nanoTime();
		deliveries.forEach((delivery) -> this.held.put(delivery, new Held(visibleUntil, claimed)));
		this.ready.addAll(deliveries);
		if (!this.active) {
			// Stopped while the claim was under way: nobody will run these, give them back
			List<Delivery<Object>> late = takeReady();
			if (!late.isEmpty()) {
				handBack(late);
			}
			return -1;
		}
		startWorkers();
		Duration nextDueIn = claim.nextDueIn();
		this.backlog = nextDueIn != null && nextDueIn.isZero();
		if (!this.backlog) {
			// Without a wake-up subscription, new tasks are found only by polling: poll sooner
			Duration maxIdle = (this.wakeSubscription != null) ? this.settings.maxIdlePoll() : shortPoll();
			this.pacer.awaitClaim(nextDueIn, maxIdle, () -> this.active);
		}
		return deliveries.size();
	}

	/**
	 * How soon the loop asks Redis again after a failed claim, or while it has no wake-up
	 * subscription: at most a second, so that the end of an outage is noticed at once whatever
	 * the idle poll.
	 */
	private Duration shortPoll() {
		Duration maxIdle = this.settings.maxIdlePoll();
		return (maxIdle.compareTo(SHORT_POLL) < 0) ? maxIdle : SHORT_POLL;
	}

	/**
	 * How many tasks may wait in this instance beyond the concurrency: as many as the handlers are
	 * expected to start within the claim-ahead time, at most the prefetch; none before the first
	 * run was measured. A handler running longer than the average so far counts with its time
	 * already spent: handlers that slow down shrink the claim-ahead at once, not only once the
	 * slow runs end and move the average.
	 */
	private int claimAhead() {
		long budget = this.settings.claimAhead().toNanos();
		if (budget == 0) {
			return this.settings.prefetch();
		}
		long handling = Math.max(this.handlingNanos, longestRunningNanos());
		if (handling == 0) {
			return 0;
		}
		double startable = (double) this.endpoint.concurrency() * budget / handling;
		return (int) Math.min(this.settings.prefetch(), startable);
	}

	private long longestRunningNanos() {
		long now = System.nanoTime();
		long longest = 0;
		for (Held running : this.running) {
			longest = Math.max(longest, now - running.startedAt);
		}
		return longest;
	}

	/** A periodic task that throws is never run again: this one must survive anything. */
	private void giveBackLongWaitingSafely() {
		try {
			giveBackLongWaiting();
		}
		catch (Throwable ex) {
			logger.warn("Could not look for tasks of queue '" + this.endpoint.queue() + "' that wait too long", ex);
		}
	}

	/**
	 * Hands back the tasks claimed ahead that waited more than twice the claim-ahead time and are
	 * not expected to start within it now: the handlers became slower than when they were
	 * claimed, and another instance may have idle workers. Runs every claim-ahead time on the
	 * extender thread; the hand-back itself runs on a thread of its own.
	 */
	private void giveBackLongWaiting() {
		if (!this.active || this.ready.isEmpty()) {
			return;
		}
		long tooLong = 2 * this.settings.claimAhead().toNanos();
		long now = System.nanoTime();
		int startSoon = claimAhead();
		List<Delivery<Object>> givenBack = new ArrayList<>();
		int position = 0;
		for (Delivery<Object> delivery : this.ready) {
			Held held = this.held.get(delivery);
			// Removing from the line is atomic: a worker that took the delivery meanwhile runs it
			if (position++ >= startSoon && held != null && now - held.claimedAt > tooLong
					&& this.ready.remove(delivery)) {
				givenBack.add(delivery);
			}
		}
		if (givenBack.isEmpty()) {
			return;
		}
		logger.debug("Handing back " + givenBack.size() + " tasks of queue '" + this.endpoint.queue()
				+ "' that waited here longer than twice the claim-ahead time");
		DaemonThreads.start("baton-queue-give-back-" + this.endpoint.queue(), () -> {
			handBack(givenBack);
			givenBack.forEach(this::finish);
		});
	}

	private void recordHandling(long nanos) {
		long average = this.handlingNanos;
		this.handlingNanos = Math.max(1, (average == 0) ? nanos : average + (nanos - average) / 8);
	}

	private boolean acquirePermit() throws InterruptedException {
		while (this.active) {
			if (this.permits.tryAcquire(100, TimeUnit.MILLISECONDS)) {
				if (this.active) {
					return true;
				}
				this.permits.release();
			}
		}
		return false;
	}

	// With a backlog, handlers finish within moments of each other: waiting a little for their
	// permits claims them in one round trip instead of one claim per finished task.
	private int gatherPermits(int wanted) throws InterruptedException {
		long deadline = System.nanoTime() + GATHER_NANOS;
		int taken = 0;
		while (taken < wanted && this.permits.tryAcquire(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
			taken++;
		}
		return taken;
	}

	private int drainPermits(int max) {
		int taken = 0;
		while (taken < max && this.permits.tryAcquire()) {
			taken++;
		}
		return taken;
	}

	/** Starts workers while deliveries wait and fewer than {@code concurrency} workers run. */
	private void startWorkers() {
		int started;
		while (!this.ready.isEmpty() && (started = this.workers.get()) < this.endpoint.concurrency()) {
			if (this.workers.compareAndSet(started, started + 1)) {
				try {
					this.handlers.execute(this::work);
				}
				catch (RuntimeException ex) {
					// The executor refused the worker: give the waiting tasks back to the queue at once
					this.workers.decrementAndGet();
					handBack(takeReady());
					return;
				}
			}
		}
	}

	private void work() {
		try {
			Delivery<Object> delivery;
			while (this.active && (delivery = this.ready.poll()) != null) {
				if (isStale(delivery)) {
					// Its visibility could not be extended in time: another consumer may run it already
					logger.warn("Dropping task '" + delivery.id() + "' of queue '" + this.endpoint.queue()
							+ "': its visibility timeout passed or it was lost while it waited for a handler");
					finish(delivery);
				}
				else {
					handle(delivery);
				}
			}
		}
		finally {
			this.workers.decrementAndGet();
		}
		// A delivery added after the last poll, while this worker still counted, would wait
		if (this.active) {
			startWorkers();
		}
	}

	private void handle(Delivery<Object> delivery) {
		Held held = this.held.get(delivery);
		if (held == null) {
			return;
		}
		held.handler = Thread.currentThread();
		Instant serverNow = Instant.now().plus(this.serverClockAhead);
		this.metrics.lateness(this.endpoint.queue(), Duration.between(delivery.dueAt(), serverNow));
		Observation observation = BatonObservation.TASK_HANDLING
			.observation(this.observations.convention(), DefaultTaskHandlingObservationConvention.INSTANCE,
					() -> new TaskHandlingContext(this.endpoint.queue(), delivery), this.observations.registry())
			.start();
		Outcome outcome = Outcome.UNSETTLED;
		boolean acknowledging = false;
		try {
			try {
				HandlerMdc mdc = HandlerMdc.open(this.endpoint.queue(), delivery.id(), delivery.attempt());
				Observation.Scope scope = observation.openScope();
				long start = System.nanoTime();
				held.startedAt = start;
				this.running.add(held);
				try {
					this.adapter.invoke(delivery.payload(), new Context(delivery, held));
				}
				finally {
					this.running.remove(held);
					recordHandling(System.nanoTime() - start);
					scope.close();
					mdc.close();
				}
				held.handler = null;
				// The permit comes back once the acknowledgement was sent: until then the task is in flight
				this.acknowledger.acknowledge(delivery, () -> finish(delivery));
				acknowledging = true;
				outcome = Outcome.SUCCESS;
			}
			catch (Exception | Error ex) {
				held.handler = null;
				observation.error(ex);
				if (held.abandoned) {
					logger.info("Task '" + delivery.id() + "' of queue '" + this.endpoint.queue()
							+ "' was interrupted by stopping; it is not settled and will be delivered again");
					return;
				}
				if (!this.active) {
					// Stopping may have closed what the handler uses: its failure says nothing of the task
					logger.info("Task '" + delivery.id() + "' of queue '" + this.endpoint.queue()
							+ "' failed while stopping (" + ex + "); it is handed back without counting the attempt");
					handBack(List.of(delivery));
					return;
				}
				outcome = settleFailure(delivery, ex);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not settle task '" + delivery.id() + "' of queue '" + this.endpoint.queue()
					+ "'; it comes back after the visibility timeout", ex);
		}
		finally {
			if (observation.getContext() instanceof TaskHandlingContext context) {
				context.setOutcome(outcome);
			}
			observation.stop();
			if (!acknowledging) {
				finish(delivery);
			}
			Thread.interrupted(); // a pooled thread must not keep an interrupt meant for this task
		}
	}

	private void finish(Delivery<Object> delivery) {
		if (this.held.remove(delivery) != null) {
			this.permitFreed = System.nanoTime();
			this.permits.release();
			if (this.awaitingRoom) {
				wake();
			}
		}
	}

	private boolean isStale(Delivery<Object> delivery) {
		Held held = this.held.get(delivery);
		return held == null || held.lost || System.nanoTime() - held.visibleUntil > 0;
	}

	/**
	 * Redis answered that these deliveries are stale: their task is no longer theirs. Those still
	 * waiting are dropped, never started; running handlers see it in {@link TaskContext#isLost()}.
	 */
	private void lost(List<Delivery<Object>> deliveries, StaleOperation operation) {
		int dropped = 0;
		for (Delivery<Object> delivery : deliveries) {
			Held held = this.held.get(delivery);
			if (held != null) {
				held.lost = true;
			}
			if (this.ready.remove(delivery)) {
				finish(delivery);
				dropped++;
			}
		}
		this.metrics.stale(this.endpoint.queue(), operation, deliveries.size());
		String ids = deliveries.stream().limit(10).map((delivery) -> "'" + delivery.id() + "'").toList().toString();
		logger.warn("Redis answered " + (operation == StaleOperation.ACK ? "the acknowledgement" : "the extension")
				+ " of " + deliveries.size() + " task(s) of queue '" + this.endpoint.queue() + "' " + ids
				+ ((deliveries.size() > 10) ? "..." : "") + " as stale: each ran out of visibility and was delivered "
				+ "to another consumer, or was settled or cancelled meanwhile"
				+ ((dropped > 0) ? "; " + dropped + " that had not started are dropped" : ""));
	}

	private Outcome settleFailure(Delivery<Object> delivery, Throwable ex) {
		TaskFailureDecision decision = this.errorHandler.handle(new TaskFailure(this.endpoint.queue(), delivery.id(),
				delivery.attempt(), ex, this.settings.backoff().toBackOff(this.settings.maxAttempts())));
		String task = "Task '" + delivery.id() + "' of queue '" + this.endpoint.queue() + "'";
		if (decision instanceof TaskFailureDecision.Retry retry) {
			this.failures.warn(task + " failed on attempt " + delivery.attempt() + " of " + this.settings.maxAttempts()
					+ "; retrying in " + Durations.readable(retry.delay()), ex);
			delivery.retry(retry.delay());
			return Outcome.RETRY;
		}
		String outcome = this.endpoint.deadLetter() ? "; dead-lettered" : "; deleted";
		this.failures.warn(task + ((delivery.attempt() >= this.settings.maxAttempts())
				? " failed on its last attempt (" + delivery.attempt() + ")"
				: " failed on attempt " + delivery.attempt() + " and is not retried") + outcome, ex);
		if (this.endpoint.deadLetter()) {
			delivery.deadLetter(SafeDeadLetterReason.of(this.deadLetterReason, ex));
		}
		else {
			delivery.ack();
		}
		return Outcome.DEAD;
	}

	/**
	 * A third of the visibility timeout: the time between extensions, and the bound of each
	 * extension call ({@code ConsumableQueue#extendVisibility}).
	 */
	private long extensionPeriodNanos() {
		return Math.max(TimeUnit.MILLISECONDS.toNanos(1), this.settings.visibilityTimeout().toNanos() / 3);
	}

	/**
	 * Extends, then schedules the next extension a period after this one was sent if it
	 * succeeded (a fixed rate from the last success), or soon if it failed: a failed call may
	 * have taken its whole bound, a period, and waiting another period would reach Redis only at
	 * the last confirmed deadline, when another consumer may take the tasks.
	 */
	private void extendAndReschedule() {
		long sent = System.nanoTime();
		long period = extensionPeriodNanos();
		long next = extendVisibility() ? period - (System.nanoTime() - sent) : period / EXTENSION_RETRIES_PER_PERIOD;
		scheduleExtension(next);
	}

	private void scheduleExtension(long delayNanos) {
		ScheduledExecutorService extender = this.extender;
		if (extender == null || extender.isShutdown()) {
			return;
		}
		try {
			extender.schedule(this::extendAndReschedule, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Stopping shut the extender down meanwhile
		}
	}

	/**
	 * Extends the visibility of every held delivery; returns whether Redis answered for all. The
	 * deliveries of partitions that answered are confirmed even when another partition failed.
	 */
	private boolean extendVisibility() {
		List<Delivery<Object>> deliveries = this.held.entrySet()
			.stream()
			.filter((entry) -> !entry.getValue().abandoned)
			.map(Map.Entry::getKey)
			.toList();
		if (deliveries.isEmpty()) {
			extensionsSucceeded();
			return true;
		}
		long sent = System.nanoTime();
		Set<Delivery<Object>> unsettled = Set.of();
		List<Delivery<Object>> stale;
		Throwable failure = null;
		try {
			stale = this.queue.extendVisibility(deliveries, this.settings.visibilityTimeout());
		}
		catch (PartialSettlementException ex) {
			unsettled = Set.copyOf(ex.<Object>unsettled());
			stale = ex.stale();
			failure = ex;
		}
		catch (Throwable ex) {
			// Any Throwable: an uncaught one would end the extensions for good
			extensionFailed(deliveries.size(), ex);
			return false;
		}
		long visibleUntil = sent + this.settings.visibilityTimeout().toNanos();
		for (Delivery<Object> delivery : deliveries) {
			Held held = unsettled.contains(delivery) ? null : this.held.get(delivery);
			if (held != null) {
				held.visibleAtLeastUntil(visibleUntil);
			}
		}
		if (!stale.isEmpty()) {
			lost(stale, StaleOperation.EXTEND);
		}
		if (failure != null) {
			extensionFailed(unsettled.size(), failure);
			return false;
		}
		extensionsSucceeded();
		return true;
	}

	private void extensionsSucceeded() {
		if (this.failedExtensions > 0) {
			logger.warn("Extended the visibility of tasks of queue '" + this.endpoint.queue() + "' again after "
					+ this.failedExtensions + " failed attempt(s)");
			this.failedExtensions = 0;
			this.extensionsFailingSince = 0;
		}
	}

	private void extensionFailed(int tasks, Throwable ex) {
		if (this.failedExtensions++ == 0) {
			this.extensionsFailingSince = System.nanoTime();
			logger.warn("Could not extend the visibility of " + tasks + " tasks of queue '" + this.endpoint.queue()
					+ "'; trying again every "
					+ TimeUnit.NANOSECONDS.toMillis(extensionPeriodNanos() / EXTENSION_RETRIES_PER_PERIOD)
					+ " ms until it succeeds", ex);
		}
		else {
			logger.debug("Could not extend the visibility of tasks of queue '" + this.endpoint.queue() + "'", ex);
		}
	}

	private void wake() {
		this.pacer.wake();
	}

	private void awaitWakeUp(Duration timeout) {
		this.pacer.await(timeout, () -> this.active);
	}

	/** Waits for the loop until the deadline; a claim still under way hands its tasks back itself. */
	private void joinLoop(long deadline) {
		DaemonThreads.joinUntil(this.loop, deadline);
	}

	/** Waits until no handler runs and no acknowledgement is pending, or the deadline passes. */
	private void awaitSettled(long deadline) {
		try {
			while (!this.held.isEmpty() && System.nanoTime() - deadline < 0) {
				Thread.sleep(10);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Subscribes to the queue's wake-ups. Without Redis this fails, which must not fail the start
	 * (the application starts while Redis is down): until a later claim succeeds and subscribes,
	 * the loop finds due tasks by polling every second at most ({@link #shortPoll()}).
	 */
	private void subscribeToWakeUps() {
		try {
			this.wakeSubscription = this.queue.onSignal(this.pacer::signal);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not subscribe to wake-ups of queue '" + this.endpoint.queue() + "' ("
					+ ex.getMessage() + "); polling every " + shortPoll().toMillis() + " ms until it succeeds");
		}
	}

	private void closeWakeSubscription() {
		AutoCloseable subscription = this.wakeSubscription;
		if (subscription == null) {
			return;
		}
		try {
			subscription.close();
		}
		catch (Exception ex) {
			logger.debug("Could not stop wake-ups of queue '" + this.endpoint.queue() + "'", ex);
		}
	}

	/** A claimed delivery until it is settled. */
	private static final class Held {

		/** How long the delivery stays invisible, as {@link System#nanoTime()}. */
		volatile long visibleUntil;

		/** The thread running its handler, if one does. */
		volatile @Nullable Thread handler;

		/** Whether stopping handed it back or left it to expire: its handler's outcome is not settled. */
		volatile boolean abandoned;

		/** Whether Redis answered that the delivery is stale: its task is no longer this instance's. */
		volatile boolean lost;

		/** When it was claimed, as {@link System#nanoTime()}. */
		final long claimedAt;

		/** When its handler started, as {@link System#nanoTime()}, if it did. */
		volatile long startedAt;

		Held(long visibleUntil, long claimedAt) {
			this.visibleUntil = visibleUntil;
			this.claimedAt = claimedAt;
		}

		/** Redis extensions never shorten the deadline, nor may the local view of it. */
		synchronized void visibleAtLeastUntil(long nanos) {
			if (nanos - this.visibleUntil > 0) {
				this.visibleUntil = nanos;
			}
		}

	}

	private final class Context implements TaskContext {

		private final Delivery<Object> delivery;

		private final Held held;

		Context(Delivery<Object> delivery, Held held) {
			this.delivery = delivery;
			this.held = held;
		}

		@Override
		public String queue() {
			return DelayedTaskListenerContainer.this.endpoint.queue();
		}

		@Override
		public String id() {
			return this.delivery.id();
		}

		@Override
		public int attempt() {
			return this.delivery.attempt();
		}

		@Override
		public Instant dueAt() {
			return this.delivery.dueAt();
		}

		@Override
		public Instant scheduledAt() {
			return this.delivery.scheduledAt();
		}

		@Override
		public boolean extendVisibility(Duration timeout) {
			long sent = System.nanoTime();
			if (!this.delivery.extendVisibility(timeout)) {
				lost(List.of(this.delivery), StaleOperation.EXTEND);
				return false;
			}
			this.held.visibleAtLeastUntil(sent + timeout.toNanos());
			return true;
		}

		@Override
		public boolean isLost() {
			return this.held.lost;
		}

	}

}
