package dev.baton.harness;

/**
 * One fault of a schedule.
 *
 * @param atMillis when it starts, from the start of the run
 * @param kind what it is
 * @param instance the instance whose proxy it hits, or {@code -1} for a fault of the server
 * @param durationMillis how long it lasts (0 for an instant fault)
 * @param latencyMillis the one-way delay of a {@link FaultKind#LATENCY} fault, else 0
 */
record Fault(long atMillis, FaultKind kind, int instance, long durationMillis, long latencyMillis) {

	long endMillis() {
		return this.atMillis + this.durationMillis;
	}

	String target() {
		return (this.instance >= 0) ? "instance-" + this.instance : "redis";
	}

	String describe() {
		StringBuilder text = new StringBuilder().append(String.format("%6d ms  %-10s  %s", this.atMillis, target(),
				this.kind));
		if (this.durationMillis > 0) {
			text.append(" for ").append(this.durationMillis).append(" ms");
		}
		if (this.latencyMillis > 0) {
			text.append(", ").append(this.latencyMillis).append(" ms each way");
		}
		return text.toString();
	}

}
