package dev.baton.harness;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a fault the injector applied was undone: a {@code CLIENT PAUSE} returns at once but lasts
 * its duration, and a fault whose undoing the injector finished late lasts until then; and until
 * when the instance is out of reach: Lettuce's reconnect comes later still.
 */
class FaultInjectorTests {

	@Test
	void aFaultIsUndoneAtTheEndOfItsDurationOrWhenTheInjectorWasDoneWithItWhicheverIsLater() {
		Fault pause = new Fault(1_000, FaultKind.CLIENT_PAUSE, -1, 2_000, 0);
		Fault cut = new Fault(1_000, FaultKind.CUT, 0, 2_000, 0);

		assertThat(new FaultInjector.Applied(pause, 1_005, 1_007).undoneMillis()).isEqualTo(3_005);
		assertThat(new FaultInjector.Applied(cut, 1_005, 3_400).undoneMillis()).isEqualTo(3_400);
	}

	@Test
	void aFaultThatRefusesConnectionsLastsUntilLettucesNextReconnectAttempt() {
		FaultInjector.Applied shortCut = new FaultInjector.Applied(new Fault(1_000, FaultKind.CUT, 0, 300, 0), 1_000,
				1_300);
		FaultInjector.Applied longCut = new FaultInjector.Applied(new Fault(1_000, FaultKind.CUT, 0, 2_270, 0), 1_000,
				3_270);
		FaultInjector.Applied blackHole = new FaultInjector.Applied(new Fault(1_000, FaultKind.BLACK_HOLE, 0, 2_270, 0),
				1_000, 3_270);

		assertThat(FaultInjector.windows(List.of(shortCut)).get(0).end()).as("waits doubled up to 300 ms")
			.isEqualTo(1_600);
		assertThat(FaultInjector.windows(List.of(longCut)).get(0).end()).as("capped").isEqualTo(4_270);
		assertThat(FaultInjector.windows(List.of(blackHole)).get(0).end()).as("connections kept").isEqualTo(3_270);
	}

	/**
	 * Standalone seed 3326635156414455949: a reset armed 500 ms after a cut of 2.3 s ended reset the
	 * reconnect's handshake, and the instance answered 2 s after the cut ended.
	 */
	@Test
	void aResetArmedBeforeTheReconnectKeepsTheInstanceOutOfReachForAnotherAttempt() {
		FaultInjector.Applied cut = new FaultInjector.Applied(new Fault(22_395, FaultKind.CUT, 0, 2_270, 0), 22_395,
				24_665);
		FaultInjector.Applied reset = new FaultInjector.Applied(
				new Fault(25_165, FaultKind.RESET_AFTER_FORWARD, 0, 0, 0), 25_165, 25_205);
		FaultInjector.Applied laterReset = new FaultInjector.Applied(
				new Fault(26_000, FaultKind.RESET_AFTER_FORWARD, 0, 0, 0), 26_000, 26_040);
		FaultInjector.Applied otherInstance = new FaultInjector.Applied(
				new Fault(25_165, FaultKind.RESET_AFTER_FORWARD, 1, 0, 0), 25_165, 25_205);

		List<Outages.Window> windows = FaultInjector.windows(List.of(cut, reset, laterReset, otherInstance));

		assertThat(windows).extracting(Outages.Window::end).containsExactly(25_665L, 26_665L, 26_040L, 25_205L);
	}

}
