package dev.baton.queue.listener;

import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.baton.internal.BatonThreads;
import dev.baton.queue.Delivery;
import org.apache.commons.logging.Log;

/**
 * Hands back the tasks claimed ahead that waited more than twice the claim-ahead time and are not
 * expected to start within it now: the handlers became slower than when they were claimed, and
 * another instance may have idle workers.
 */
final class PrefetchGiveBack {

	private static final Log logger = DelayedTaskListenerContainer.logger;

	private final BatonThreads threads;

	private final String queueName;

	private final ListenerSettings settings;

	private final HeldDeliveries held;

	private final ClaimAheadEstimate estimate;

	private final HandBack handBack;

	private final BooleanSupplier active;

	PrefetchGiveBack(BatonThreads threads, String queueName, ListenerSettings settings, HeldDeliveries held,
			ClaimAheadEstimate estimate, HandBack handBack, BooleanSupplier active) {
		this.threads = threads;
		this.queueName = queueName;
		this.settings = settings;
		this.held = held;
		this.estimate = estimate;
		this.handBack = handBack;
		this.active = active;
	}

	/** Looks for such tasks every claim-ahead time on {@code timer}, if tasks are claimed ahead at all. */
	void start(ScheduledExecutorService timer) {
		long claimAhead = this.settings.claimAhead().toNanos();
		if (claimAhead > 0 && this.settings.prefetch() > 0) {
			timer.scheduleWithFixedDelay(this::giveBackLongWaitingSafely, claimAhead, claimAhead,
					TimeUnit.NANOSECONDS);
		}
	}

	/** A periodic task that throws is never run again: this one must survive anything. */
	private void giveBackLongWaitingSafely() {
		try {
			giveBackLongWaiting();
		}
		catch (Throwable ex) {
			logger.warn("Could not look for tasks of queue '" + this.queueName + "' that wait too long", ex);
		}
	}

	/** Takes such tasks out of line; the hand-back itself runs on a thread of its own. */
	private void giveBackLongWaiting() {
		if (!this.active.getAsBoolean() || !this.held.hasReady()) {
			return;
		}
		long tooLong = 2 * this.settings.claimAhead().toNanos();
		List<Delivery<Object>> givenBack = this.held.takeWaitingLongerThan(tooLong, this.estimate.tasks());
		if (givenBack.isEmpty()) {
			return;
		}
		logger.debug("Handing back " + givenBack.size() + " tasks of queue '" + this.queueName
				+ "' that waited here longer than twice the claim-ahead time");
		this.threads.start("baton-queue-give-back-" + this.queueName, () -> {
			this.handBack.handBack(givenBack);
			givenBack.forEach(this.held::finish);
		});
	}

}
