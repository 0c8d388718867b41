package dev.baton.queue.listener;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Retries a failed task on a back-off and gives up when the back-off stops, or at once for a
 * not-retryable exception. By default the back-off is each queue's own ({@code max-attempts} and
 * {@code backoff.*}, see {@link TaskFailure#backOff()}); one given here applies to every queue.
 *
 * <p>Like Spring's {@code @Retryable}, an exception counts as not retryable when it, or one of
 * its causes, is an instance of a registered type.
 */
public class DefaultDelayedTaskErrorHandler implements DelayedTaskErrorHandler {

	private final @Nullable BackOff backOff;

	private final Set<Class<? extends Throwable>> notRetryable = new LinkedHashSet<>();

	/** Retry on each queue's configured back-off. */
	public DefaultDelayedTaskErrorHandler() {
		this.backOff = null;
	}

	/**
	 * Retry on the given back-off, whatever the queues' settings.
	 * @param backOff the delay before each retry; {@link BackOffExecution#STOP} gives up
	 */
	public DefaultDelayedTaskErrorHandler(BackOff backOff) {
		this.backOff = backOff;
	}

	/**
	 * Give up at once on tasks that fail with these exceptions, or with exceptions caused by them.
	 * @param types the exception types
	 * @return this handler
	 */
	@SafeVarargs
	public final DefaultDelayedTaskErrorHandler addNotRetryableExceptions(Class<? extends Throwable>... types) {
		for (Class<? extends Throwable> type : types) {
			this.notRetryable.add(type);
		}
		return this;
	}

	@Override
	public TaskFailureDecision handle(TaskFailure failure) {
		if (isNotRetryable(failure.exception())) {
			return TaskFailureDecision.giveUp();
		}
		BackOffExecution execution = ((this.backOff != null) ? this.backOff : failure.backOff()).start();
		long delay = BackOffExecution.STOP;
		// The delay before attempt n + 1 is the back-off's n-th.
		for (int retry = 1; retry <= failure.attempt(); retry++) {
			delay = execution.nextBackOff();
			if (delay == BackOffExecution.STOP) {
				return TaskFailureDecision.giveUp();
			}
		}
		return TaskFailureDecision.retryAfter(Duration.ofMillis(delay));
	}

	private boolean isNotRetryable(Throwable exception) {
		for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
			for (Class<? extends Throwable> type : this.notRetryable) {
				if (type.isInstance(cause)) {
					return true;
				}
			}
		}
		return false;
	}

}
