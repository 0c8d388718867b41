package dev.baton.internal;

import dev.baton.queue.DeadLetterReason;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Asks the application's {@link DeadLetterReason} for a reason, falling back to
 * {@link DeadLetterReason#EXCEPTION_CLASS} where it throws or returns {@code null}: a broken hook
 * must not keep a failed task from its dead letter.
 */
public final class SafeDeadLetterReason {

	private static final Log logger = LogFactory.getLog(SafeDeadLetterReason.class);

	private SafeDeadLetterReason() {
	}

	/**
	 * The hook's reason for a failure, or the exception's class.
	 * @param hook the application's hook
	 * @param failure the failure to give a reason for
	 * @return the reason
	 */
	public static String of(DeadLetterReason hook, Throwable failure) {
		try {
			String reason = hook.of(failure);
			if (reason != null) {
				return reason;
			}
			logger.warn("Dead-letter reason hook " + hook + " returned null; the reason is the exception's class");
		}
		catch (RuntimeException ex) {
			logger.warn("Dead-letter reason hook " + hook + " failed; the reason is the exception's class", ex);
		}
		return DeadLetterReason.EXCEPTION_CLASS.of(failure);
	}

}
