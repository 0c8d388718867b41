package dev.baton.harness;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a fault the injector applied was undone: a {@code CLIENT PAUSE} returns at once but lasts
 * its duration, and a fault whose undoing the injector finished late lasts until then.
 */
class FaultInjectorTests {

	@Test
	void aFaultIsUndoneAtTheEndOfItsDurationOrWhenTheInjectorWasDoneWithItWhicheverIsLater() {
		Fault pause = new Fault(1_000, FaultKind.CLIENT_PAUSE, -1, 2_000, 0);
		Fault cut = new Fault(1_000, FaultKind.CUT, 0, 2_000, 0);

		assertThat(new FaultInjector.Applied(pause, 1_005, 1_007).undoneMillis()).isEqualTo(3_005);
		assertThat(new FaultInjector.Applied(cut, 1_005, 3_400).undoneMillis()).isEqualTo(3_400);
	}

}
