package dev.baton.queue.spi;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A queue whose waiting tasks a test can make due early, as if its clock had moved forward:
 * what a test clock such as {@code dev.baton.test.queue.QueueClock} needs. Not for production
 * code: it reads every waiting task.
 */
public interface AdvanceableQueue {

	/**
	 * Move every waiting task's due time earlier by {@code by}; in-flight tasks are left alone.
	 * @param by how far to move the due times, not negative; {@code null} for as far as it takes
	 * to make every waiting task due
	 * @return how many waiting tasks are due now
	 */
	long advance(@Nullable Duration by);

}
