package dev.baton.queue;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The records that carry payloads print none of them: a {@code toString()} ends up in log lines
 * and exception messages, and payloads carry personal data (an IBAN, an address).
 */
class RecordsKeepPayloadsOutOfLogsTests {

	private static final String IBAN = "DE44500105175407324931";

	@Test
	void aDeadLetterPrintsItsIdAttemptsAndTimeButNoPayloadOrReason() {
		DeadLetter<String> dead = new DeadLetter<>("refund-7", IBAN, 3, "rejected " + IBAN, Instant.EPOCH, IBAN);

		assertThat(dead.toString()).doesNotContain(IBAN).contains("refund-7").contains("attempts=3");
	}

	@Test
	void aScheduledTaskPrintsItsIdAndTimesButNoPayload() {
		ScheduledTask<String> task = new ScheduledTask<>("refund-7", IBAN, Instant.EPOCH, Instant.EPOCH, false, IBAN);

		assertThat(task.toString()).doesNotContain(IBAN).contains("refund-7");
	}

	@Test
	void aNewTaskPrintsItsIdAndDelayButNoPayload() {
		NewTask<String> task = new NewTask<>("refund-7", IBAN, Duration.ofMinutes(30));

		assertThat(task.toString()).doesNotContain(IBAN).contains("refund-7").contains("PT30M");
	}

}
