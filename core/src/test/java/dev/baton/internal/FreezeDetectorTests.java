package dev.baton.internal;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FreezeDetector} on a ticking thread that the tests hold up, as a stop of the JVM holds up
 * every thread.
 */
class FreezeDetectorTests {

	private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor();

	private final RecordingLog log = new RecordingLog();

	private final FreezeDetector freezes = new FreezeDetector(this.log);

	@AfterEach
	void tearDown() {
		this.freezes.close();
		this.ticks.shutdownNow();
	}

	@Test
	void aStopOfASecondOrMoreIsNoticedAndLoggedAtWarnWithItsLength() throws Exception {
		long before = System.nanoTime();

		stopTicking(1200);

		assertThat(this.freezes.frozeSince(before)).isTrue();
		assertThat(this.log.warnings).singleElement()
			.asString()
			.containsPattern("^This JVM did not run for about 1[2-9]\\d\\d ms")
			.contains("sentinels' messages");
	}

	@Test
	void aShorterStopIsNoticedButLoggedOnlyAtDebug() throws Exception {
		long before = System.nanoTime();

		stopTicking(300);

		assertThat(this.freezes.frozeSince(before)).isTrue();
		assertThat(this.log.warnings).isEmpty();
		assertThat(this.log.debugs)
			.anySatisfy((message) -> assertThat(message).asString().containsPattern("^This JVM did not run for about 3\\d\\d ms"));
	}

	/** Starts the detector, holds its ticking thread up for {@code millis}, then lets it tick once more. */
	private void stopTicking(long millis) throws Exception {
		this.freezes.start(this.ticks);
		this.ticks.submit(() -> sleep(millis)).get();
		Thread.sleep(50);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
