package dev.baton.harness;

/**
 * One fault of a schedule.
 *
 * @param atMillis when it starts, from the start of the run
 * @param kind what it is
 * @param instance the instance whose proxy it hits (the child JVM's track after them), or {@code -1}
 * for a fault of the server
 * @param durationMillis how long it lasts (0 for an instant fault)
 * @param latencyMillis the one-way delay of a {@link FaultKind#LATENCY} fault, else 0
 * @param node the Redis Cluster primary a server fault hits, by index, or {@code -1} for a fault of
 * an instance or of a server that is the only one
 */
record Fault(long atMillis, FaultKind kind, int instance, long durationMillis, long latencyMillis, int node) {

	/** A fault of an instance, or of the only server. */
	Fault(long atMillis, FaultKind kind, int instance, long durationMillis, long latencyMillis) {
		this(atMillis, kind, instance, durationMillis, latencyMillis, -1);
	}

	/** The same fault, of another kind. */
	Fault as(FaultKind other) {
		return new Fault(this.atMillis, other, this.instance, this.durationMillis, this.latencyMillis, this.node);
	}

	long endMillis() {
		return this.atMillis + this.durationMillis;
	}

	String target() {
		if (this.kind == FaultKind.JVM_PAUSE) {
			return "child-jvm";
		}
		if (this.instance >= 0) {
			return "instance-" + this.instance;
		}
		return (this.node >= 0) ? "primary-" + this.node : "redis";
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
