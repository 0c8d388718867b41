package dev.baton.harness;

/** Sleeps of the workload's threads, which nobody interrupts but the end of the JVM. */
final class Pause {

	private Pause() {
	}

	static void millis(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
