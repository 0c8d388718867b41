package dev.baton.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import dev.baton.internal.BatonThreads;
import dev.baton.internal.ObservationSettings;
import dev.baton.observation.TaskHandlingObservationConvention;
import dev.baton.queue.DeadLetterReason;
import dev.baton.queue.Delivery;
import dev.baton.queue.spi.ConsumableQueue;
import dev.baton.queue.spi.ConsumableQueue.Claim;
import dev.baton.queue.listener.HandlerMetrics.StaleOperation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Consumes one queue for one handler. A single loop thread claims at most as many tasks as there
 * are free {@link Permits permits} (one per handler, plus the prefetch), puts them in line for up
 * to {@code concurrency} {@link Workers workers}, and then waits for a free permit and for the
 * next due time, a wake-up from the queue or {@code maxIdlePoll}, whichever comes first
 * ({@link ClaimPacer}); after a full batch it claims again at once. While tasks are held, a
 * {@link VisibilityExtender} extends their visibility, and a {@link PrefetchGiveBack} hands back
 * those claimed ahead that wait too long. Both the loop and the acknowledgements survive any
 * {@link Throwable}: they log, pause and go on.
 *
 * <p>Stopping has one deadline, {@code shutdownTimeout} from its start, or sooner if the context's
 * shutdown phase leaves less: it stops claiming (a claim that returns later hands its tasks back
 * itself), hands back the tasks that did not start, waits until the deadline for running handlers
 * and pending acknowledgements, then hands back what still runs in one call bounded by
 * {@link #HAND_BACK_TIMEOUT} and interrupts those handlers. Once stopping began, no handler
 * failure settles its task ({@link HandlerInvocation}).
 */
final class DelayedTaskListenerContainer implements DelayedTaskContainer {

	/** One category for the container and its parts: its logs are configured and filtered under one name. */
	static final Log logger = LogFactory.getLog(DelayedTaskListenerContainer.class);

	/** The longest wait before the loop asks Redis again after a failed claim ({@link #shortPoll()}). */
	private static final Duration SHORT_POLL = Duration.ofSeconds(1);

	/** The longest the final hand-back of a stop may take, whatever Redis does. */
	static final Duration HAND_BACK_TIMEOUT = Duration.ofSeconds(2);

	private final BatonThreads threads;

	private final ConsumableQueue<Object> queue;

	private final DelayedTaskEndpoint endpoint;

	private final ListenerSettings settings;

	private final ClaimPacer pacer;

	private final Permits permits;

	private final HeldDeliveries held;

	private final Acknowledger acknowledger;

	private final DeliveryLimit deliveryLimit;

	private final ClaimAheadEstimate claimAhead;

	private final ServerClock serverClock = new ServerClock();

	private final HandBack handBack;

	private final Workers workers;

	private final VisibilityExtender extender;

	private final PrefetchGiveBack giveBack;

	private final WakeSubscription wakeUps;

	/** Whether the last claim left due tasks behind; only the loop thread reads and writes it. */
	private boolean backlog;

	/** When the last claim came back, for the status. */
	private volatile @Nullable Instant lastClaim;

	/** When claims started failing in a row, as {@link System#nanoTime()}, or 0 while they succeed. */
	private volatile long failingSince;

	private volatile boolean active;

	private volatile @Nullable Thread loop;

	/** Stops the handlers' threads, once stopped. */
	private final Runnable releaseHandlers;

	/** Runs the extensions and the give-backs. */
	private @Nullable ScheduledExecutorService timer;

	DelayedTaskListenerContainer(BatonThreads threads, ConsumableQueue<Object> queue, DelayedTaskEndpoint endpoint,
			ListenerSettings settings, Executor handlers, HandlerMetrics metrics,
			ObservationSettings<TaskHandlingObservationConvention> observations, DeadLetterReason deadLetterReason,
			DelayedTaskErrorHandler errorHandler, Runnable releaseHandlers) {
		String name = endpoint.queue();
		this.threads = threads;
		this.releaseHandlers = releaseHandlers;
		this.queue = queue;
		this.endpoint = endpoint;
		this.settings = settings;
		this.pacer = new ClaimPacer(queue::partitionCount);
		this.permits = new Permits(endpoint.concurrency() + settings.prefetch(), this.pacer::wake);
		this.held = new HeldDeliveries(name, metrics, this.permits);
		this.acknowledger = new Acknowledger(threads, queue, name, this.held::isStale,
				(refused) -> this.held.lost(refused, StaleOperation.ACK),
				(dropped) -> metrics.stale(name, StaleOperation.ACK_DROPPED, 1), this.held::lendPermit);
		this.deliveryLimit = new DeliveryLimit(name, settings, endpoint.deadLetter(), metrics);
		this.claimAhead = new ClaimAheadEstimate(settings, endpoint.concurrency(), this.held);
		this.handBack = new HandBack(threads, queue, name);
		FailureSettlement failures = new FailureSettlement(name, settings, endpoint.deadLetter(), deadLetterReason,
				errorHandler);
		HandlerInvocation invocation = new HandlerInvocation(endpoint, metrics, observations, this.held,
				this.acknowledger, failures, this.handBack, this.claimAhead, this.serverClock, this::isActive);
		this.workers = new Workers(name, endpoint.concurrency(), handlers, this.held, invocation, this.handBack,
				this::isActive);
		this.extender = new VisibilityExtender(queue, name, settings.visibilityTimeout(), this.held);
		this.giveBack = new PrefetchGiveBack(threads, name, settings, this.held, this.claimAhead, this.handBack,
				this::isActive);
		this.wakeUps = new WakeSubscription(queue, name, this.pacer, shortPoll());
	}

	@Override
	public String getQueueName() {
		return this.endpoint.queue();
	}

	@Override
	public boolean isRunning() {
		return this.active;
	}

	private boolean isActive() {
		return this.active;
	}

	@Override
	public DelayedTaskListenerStatus getStatus() {
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
		if (lasted(this.extender.failingSince(), now, stalledAfter)) {
			return "visibility extensions keep failing";
		}
		if (this.permits.exhaustedLongerThan(stalledAfter, now)) {
			return "every permit is held and none was freed";
		}
		return null;
	}

	private static boolean lasted(long since, long now, long limit) {
		return since != 0 && now - since > limit;
	}

	@Override
	public void start() {
		this.active = true;
		this.acknowledger.start();
		this.wakeUps.subscribe();
		// A thread per queue: a slow extension of one queue cannot delay another's.
		// Platform even with virtual threads: an extension must not wait for a carrier pinned virtual threads hold.
		ScheduledExecutorService timer = this.threads.platform()
			.scheduled("baton-queue-visibility-" + this.endpoint.queue());
		this.timer = timer;
		this.extender.start(timer);
		this.giveBack.start(timer);
		this.loop = this.threads.start("baton-queue-" + this.endpoint.queue(), this::run);
	}

	@Override
	public void stop() {
		stop(this.settings.shutdownTimeout());
	}

	/**
	 * Stop claiming, hand back the tasks that did not start, wait for running handlers until the
	 * shutdown timeout, then hand back what is still running and interrupt it.
	 * @param maxWait the longest wait for running handlers, whatever the shutdown timeout: what
	 * the context's shutdown phase leaves (the beans handlers use are destroyed after it)
	 */
	@Override
	public void stop(Duration maxWait) {
		Duration wait = (this.settings.shutdownTimeout().compareTo(maxWait) < 0) ? this.settings.shutdownTimeout()
				: maxWait;
		long deadline = System.nanoTime() + wait.toNanos();
		this.active = false;
		this.pacer.wake();
		// A claim still under way when the deadline passes hands its tasks back itself
		BatonThreads.joinUntil(this.loop, deadline);
		this.threads.start("baton-queue-stop-" + this.endpoint.queue(), this.wakeUps::close);
		List<Delivery<Object>> notStarted = this.held.takeReady();
		if (!notStarted.isEmpty()) {
			// At once, so that other instances take them while handlers here finish
			this.handBack.handBackInBackground(notStarted);
		}
		this.held.awaitSettled(deadline);
		this.acknowledger.close(deadline);
		// Handed back or left to expire: either way their outcome must not settle them
		List<Map.Entry<Delivery<Object>, HeldDelivery>> unfinished = this.held.abandonRunning();
		ScheduledExecutorService timer = this.timer;
		if (timer != null) {
			timer.shutdownNow();
		}
		if (!unfinished.isEmpty()) {
			this.handBack.handBackWithin(unfinished.stream().map(Map.Entry::getKey).toList(), HAND_BACK_TIMEOUT);
			unfinished.forEach((entry) -> interrupt(entry.getValue().handler));
		}
		this.releaseHandlers.run();
	}

	private static void interrupt(@Nullable Thread handler) {
		if (handler != null && handler != Thread.currentThread()) {
			handler.interrupt();
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
				this.pacer.await(shortPoll(), this::isActive);
			}
		}
	}

	/** One turn of the loop; returns -1 when stopped. */
	private int claimAndDispatch() throws InterruptedException {
		if (!this.permits.acquire(this::isActive)) {
			return -1;
		}
		// Set before counting, so that a task finishing meanwhile still wakes the wait below
		this.permits.awaitingRoom(true);
		int room = this.endpoint.concurrency() + this.claimAhead.tasks() - this.held.takingRoom();
		if (room < 1) {
			// Handlers became slower: what is held already cannot start within the claim-ahead time
			this.permits.release(1);
			this.pacer.await(this.settings.maxIdlePoll(), this::isActive);
			this.permits.awaitingRoom(false);
			return 0;
		}
		this.permits.awaitingRoom(false);
		int limit = Math.min(this.settings.batchSize(), room);
		int max = 1 + this.permits.drain(limit - 1);
		if (this.backlog) {
			max += this.permits.gather(limit - max);
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
		if (!this.wakeUps.isSubscribed() && this.active) {
			// Redis answers again: wake-ups can be had now.
			this.wakeUps.subscribe();
		}
		this.pacer.claimed(this.serverClock.measure(sentAt, receivedAt, claim.serverTime()),
				Duration.between(sentAt, receivedAt), claim.serverTime());
		List<Delivery<Object>> deliveries = this.deliveryLimit.admit(claim.deliveries());
		this.permits.release(max - deliveries.size());
		this.held.hold(deliveries, sent + this.settings.visibilityTimeout().toNanos());
		if (!this.active) {
			// Stopped while the claim was under way: nobody will run these, give them back
			List<Delivery<Object>> late = this.held.takeReady();
			if (!late.isEmpty()) {
				this.handBack.handBack(late);
			}
			return -1;
		}
		this.workers.start();
		Duration nextDueIn = claim.nextDueIn();
		this.backlog = nextDueIn != null && nextDueIn.isZero();
		if (!this.backlog) {
			// Without a wake-up subscription, new tasks are found only by polling: poll sooner
			Duration maxIdle = this.wakeUps.isSubscribed() ? this.settings.maxIdlePoll() : shortPoll();
			this.pacer.awaitClaim(nextDueIn, maxIdle, this::isActive);
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

}
