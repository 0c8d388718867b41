package dev.baton.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.baton.queue.Delivery;
import dev.baton.queue.TaskContext;
import dev.baton.queue.internal.ConsumableQueue;
import dev.baton.queue.internal.ConsumableQueue.Claim;
import dev.baton.queue.listener.HandlerMetrics.Outcome;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Consumes one queue for one handler. A single loop thread claims at most as many tasks as there
 * are free permits (back-pressure: one per handler, plus the prefetch), puts them in line for up
 * to {@code concurrency} workers on the handler executor, and then waits for a free permit and
 * for the next due time, a wake-up from the queue or {@code maxIdlePoll}, whichever comes first;
 * after a full batch it claims again at once. While tasks are held, the visibility of all their
 * deliveries is extended in one call every third of the visibility timeout. Stopping stops
 * claiming, hands back the tasks that did not start, waits up to {@code shutdownTimeout} for
 * running handlers and hands the rest back to the queue.
 */
final class DelayedTaskListenerContainer {

	private static final Log logger = LogFactory.getLog(DelayedTaskListenerContainer.class);

	/** How long a backlogged loop waits for more free permits before it claims. */
	private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

	private final ConsumableQueue<Object> queue;

	private final DelayedTaskEndpoint endpoint;

	private final ListenerSettings settings;

	private final HandlerMethodAdapter adapter;

	private final Executor handlers;

	private final ScheduledExecutorService scheduler;

	private final HandlerMetrics metrics;

	/** One per task this container may hold: its concurrency plus its prefetch. */
	private final int capacity;

	private final Semaphore permits;

	/** Claimed deliveries waiting for a worker, in due order. */
	private final Queue<Delivery<Object>> ready = new ConcurrentLinkedQueue<>();

	/** Workers started on the handler executor, at most the concurrency. */
	private final AtomicInteger workers = new AtomicInteger();

	private final Acknowledger acknowledger;

	/** Whether the last claim left due tasks behind; only the loop thread reads and writes it. */
	private boolean backlog;

	/** Deliveries being handled and not settled, with the thread handling each. */
	private final Map<Delivery<Object>, Thread> running = new ConcurrentHashMap<>();

	/**
	 * How far the Redis server's clock is ahead of this JVM's, as of the last claim: due times are
	 * server times, so lateness is measured on the server's clock, not on a skewed local one.
	 */
	private volatile Duration serverClockAhead = Duration.ZERO;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition wakeUp = this.lock.newCondition();

	private boolean woken;

	private volatile boolean active;

	private @Nullable Thread loop;

	private @Nullable AutoCloseable wakeSubscription;

	private @Nullable ScheduledFuture<?> extender;

	DelayedTaskListenerContainer(ConsumableQueue<Object> queue, DelayedTaskEndpoint endpoint, ListenerSettings settings,
			Executor handlers, ScheduledExecutorService scheduler, HandlerMetrics metrics) {
		this.queue = queue;
		this.endpoint = endpoint;
		this.settings = settings;
		this.adapter = new HandlerMethodAdapter(endpoint.bean(), endpoint.method());
		this.handlers = handlers;
		this.scheduler = scheduler;
		this.metrics = metrics;
		this.capacity = endpoint.concurrency() + settings.prefetch();
		this.permits = new Semaphore(this.capacity);
		this.acknowledger = new Acknowledger(queue, endpoint.queue());
	}

	void start() {
		this.active = true;
		this.acknowledger.start();
		this.wakeSubscription = this.queue.onWake(this::wake);
		long period = Math.max(1, this.settings.visibilityTimeout().toMillis() / 3);
		this.extender = this.scheduler.scheduleWithFixedDelay(this::extendVisibility, period, period,
				TimeUnit.MILLISECONDS);
		Thread thread = new Thread(this::run, "baton-queue-" + this.endpoint.queue());
		thread.setDaemon(true);
		this.loop = thread;
		thread.start();
	}

	/**
	 * Stop claiming, hand back the tasks that did not start, wait for running handlers up to the
	 * shutdown timeout, then hand back what is still running.
	 * @return the number of deliveries handed back
	 */
	int stop() {
		this.active = false;
		wake();
		joinLoop();
		closeWakeSubscription();
		List<Delivery<Object>> notStarted = takeReady();
		handBack(notStarted);
		this.permits.release(notStarted.size());
		boolean finished = acquireAll(this.capacity);
		List<Delivery<Object>> unfinished = List.copyOf(this.running.keySet());
		if (!finished) {
			handBack(unfinished);
		}
		if (this.extender != null) {
			this.extender.cancel(false);
		}
		this.acknowledger.close(this.settings.shutdownTimeout());
		// Their tasks are handed back: interrupt the handlers, they can no longer settle them
		unfinished.forEach((delivery) -> {
			Thread handler = this.running.get(delivery);
			if (handler != null && handler != Thread.currentThread()) {
				handler.interrupt();
			}
		});
		return notStarted.size() + (finished ? 0 : unfinished.size());
	}

	private List<Delivery<Object>> takeReady() {
		List<Delivery<Object>> taken = new ArrayList<>();
		Delivery<Object> delivery;
		while ((delivery = this.ready.poll()) != null) {
			taken.add(delivery);
		}
		return taken;
	}

	private void handBack(List<Delivery<Object>> deliveries) {
		if (deliveries.isEmpty()) {
			return;
		}
		try {
			this.queue.handBack(deliveries);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not hand back " + deliveries.size() + " tasks of queue '" + this.endpoint.queue()
					+ "'; they come back after the visibility timeout", ex);
		}
	}

	private void run() {
		while (this.active) {
			try {
				int claimed = claimAndDispatch();
				if (claimed < 0) {
					return;
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				logger.warn("Claiming from queue '" + this.endpoint.queue() + "' failed; trying again", ex);
				awaitWakeUp(this.settings.maxIdlePoll());
			}
		}
	}

	/** One turn of the loop; returns -1 when stopped. */
	private int claimAndDispatch() throws InterruptedException {
		if (!acquirePermit()) {
			return -1;
		}
		int max = 1 + drainPermits(this.settings.batchSize() - 1);
		if (this.backlog) {
			max += gatherPermits(Math.min(this.settings.batchSize(), this.capacity) - max);
		}
		Claim<Object> claim;
		try {
			claim = this.queue.claim(max, this.settings.visibilityTimeout());
		}
		catch (RuntimeException ex) {
			this.permits.release(max);
			throw ex;
		}
		this.serverClockAhead = Duration.between(Instant.now(), claim.serverTime());
		List<Delivery<Object>> deliveries = claim.deliveries();
		this.permits.release(max - deliveries.size());
		this.ready.addAll(deliveries);
		startWorkers();
		Duration nextDueIn = claim.nextDueIn();
		this.backlog = nextDueIn != null && nextDueIn.isZero();
		if (!this.backlog) {
			Duration maxIdle = this.settings.maxIdlePoll();
			awaitWakeUp((nextDueIn != null && nextDueIn.compareTo(maxIdle) < 0) ? nextDueIn : maxIdle);
		}
		return deliveries.size();
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
					List<Delivery<Object>> refused = takeReady();
					handBack(refused);
					this.permits.release(refused.size());
					return;
				}
			}
		}
	}

	private void work() {
		try {
			Delivery<Object> delivery;
			while (this.active && (delivery = this.ready.poll()) != null) {
				handle(delivery);
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
		this.running.put(delivery, Thread.currentThread());
		long start = System.nanoTime();
		Instant serverNow = Instant.now().plus(this.serverClockAhead);
		this.metrics.lateness(this.endpoint.queue(), Duration.between(delivery.dueAt(), serverNow));
		Outcome outcome;
		boolean acknowledging = false;
		try {
			try {
				this.adapter.invoke(delivery.payload(), new Context(delivery));
				// The permit comes back once the acknowledgement was sent: until then the task is in flight
				this.acknowledger.acknowledge(delivery, () -> finish(delivery));
				acknowledging = true;
				outcome = Outcome.SUCCESS;
			}
			catch (Exception | Error ex) {
				outcome = settleFailure(delivery, ex);
			}
			this.metrics.handled(this.endpoint.queue(), outcome, System.nanoTime() - start);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not settle task '" + delivery.id() + "' of queue '" + this.endpoint.queue()
					+ "'; it comes back after the visibility timeout", ex);
		}
		finally {
			if (!acknowledging) {
				finish(delivery);
			}
			Thread.interrupted(); // a pooled thread must not keep an interrupt meant for this task
		}
	}

	private void finish(Delivery<Object> delivery) {
		this.running.remove(delivery);
		this.permits.release();
	}

	private Outcome settleFailure(Delivery<Object> delivery, Throwable ex) {
		if (delivery.attempt() < this.settings.maxAttempts()) {
			Duration delay = this.settings.backoff().delayAfter(delivery.attempt());
			if (logger.isDebugEnabled()) {
				logger.debug("Task '" + delivery.id() + "' of queue '" + this.endpoint.queue() + "' failed on attempt "
						+ delivery.attempt() + "; retrying in " + delay, ex);
			}
			delivery.retry(delay);
			return Outcome.RETRY;
		}
		logger.warn("Task '" + delivery.id() + "' of queue '" + this.endpoint.queue() + "' failed on its last attempt ("
				+ delivery.attempt() + ")" + (this.endpoint.deadLetter() ? "; dead-lettered" : "; deleted"), ex);
		if (this.endpoint.deadLetter()) {
			delivery.deadLetter(ex.getClass().getName() + ": " + ex.getMessage());
		}
		else {
			delivery.ack();
		}
		return Outcome.DEAD;
	}

	private void extendVisibility() {
		// Waiting ones first: one that starts meanwhile is then found running
		List<Delivery<Object>> deliveries = new ArrayList<>(this.ready);
		deliveries.addAll(this.running.keySet());
		if (deliveries.isEmpty()) {
			return;
		}
		try {
			this.queue.extendVisibility(deliveries, this.settings.visibilityTimeout());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not extend the visibility of " + deliveries.size() + " tasks of queue '"
					+ this.endpoint.queue() + "'", ex);
		}
	}

	private void wake() {
		this.lock.lock();
		try {
			this.woken = true;
			this.wakeUp.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void awaitWakeUp(Duration timeout) {
		long nanos = timeout.toNanos();
		this.lock.lock();
		try {
			while (!this.woken && this.active && nanos > 0) {
				nanos = this.wakeUp.awaitNanos(nanos);
			}
			this.woken = false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void joinLoop() {
		Thread thread = this.loop;
		if (thread == null) {
			return;
		}
		try {
			thread.join(Math.max(1000, this.settings.maxIdlePoll().toMillis() * 2));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private boolean acquireAll(int all) {
		try {
			if (this.permits.tryAcquire(all, this.settings.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
				this.permits.release(all);
				return true;
			}
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
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

	private final class Context implements TaskContext {

		private final Delivery<Object> delivery;

		Context(Delivery<Object> delivery) {
			this.delivery = delivery;
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
		public void extendVisibility(Duration timeout) {
			this.delivery.extendVisibility(timeout);
		}

	}

}
