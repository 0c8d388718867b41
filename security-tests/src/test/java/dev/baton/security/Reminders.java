package dev.baton.security;

import java.time.Duration;

import dev.baton.queue.DeadLetter;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.ScheduledTask;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code reminders} queue the tests write to: a waiting task {@value #WAITING} and a dead
 * letter {@value #FAILED}, with payload text {@value #TEXT} and reason {@value #REASON}.
 */
final class Reminders {

	static final String WAITING = "waiting";

	static final String FAILED = "failed";

	static final String TEXT = "pay";

	static final String REASON = "refused";

	private Reminders() {
	}

	/** Schedule {@value #WAITING} in an hour and dead-letter {@value #FAILED}. */
	static void fill(DelayQueue<Reminder> reminders) {
		reminders.schedule(WAITING, new Reminder(TEXT), Duration.ofHours(1));
		reminders.schedule(FAILED, new Reminder(TEXT), Duration.ZERO);
		assertThat(reminders.poll(1).get(0).deadLetter(REASON)).isTrue();
	}

	/** Both are still where {@link #fill} put them. */
	static void assertUnchanged(DelayQueue<Reminder> reminders) {
		assertThat(reminders.peek(10)).extracting(ScheduledTask::id).containsExactly(WAITING);
		assertThat(reminders.deadLetters(10)).extracting(DeadLetter::id).containsExactly(FAILED);
	}

}
