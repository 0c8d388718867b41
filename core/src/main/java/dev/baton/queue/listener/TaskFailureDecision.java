package dev.baton.queue.listener;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * What a {@link DelayedTaskErrorHandler} decided for a failed task.
 */
public sealed interface TaskFailureDecision {

	/**
	 * Run the task again after a delay, counting the attempt.
	 * @param delay the delay, not negative
	 * @return the decision
	 */
	static TaskFailureDecision retryAfter(Duration delay) {
		return new Retry(delay);
	}

	/**
	 * Run the task no more: dead-letter it, or delete it where its handler asks for no dead letters.
	 * @return the decision
	 */
	static TaskFailureDecision giveUp() {
		return GiveUp.INSTANCE;
	}

	/**
	 * Run the task again after {@code delay}.
	 * @param delay the delay, not negative
	 */
	record Retry(Duration delay) implements TaskFailureDecision {

		public Retry {
			Assert.isTrue(!delay.isNegative(), () -> "Retry delay must not be negative, got " + delay);
		}

	}

	/** Run the task no more. */
	enum GiveUp implements TaskFailureDecision {

		/** The one instance. */
		INSTANCE

	}

}
