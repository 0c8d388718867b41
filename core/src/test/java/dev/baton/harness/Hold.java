package dev.baton.harness;

/**
 * One critical section: a holder of a lock between its acquisition and its release, as the
 * workload saw it.
 */
final class Hold {

	/** The token of a holder that cannot ask for one: a {@code @DistributedLock} method. */
	static final long NO_TOKEN = 0;

	final String holder;

	final String name;

	final long token;

	final long startMillis;

	/** The lock manager that granted the lease, or {@code null} where the holder cannot tell (a {@code @DistributedLock} method). */
	final Object grantedBy;

	/**
	 * Whether it is the second part of a section whose lease was handed over and restored: the
	 * fencing token of the first part, which it does not take a second time.
	 */
	final boolean restored;

	volatile long endMillis = Long.MAX_VALUE;

	/** Whether the holder learned of a loss: its lease invalid at the end, or an unlock refused. */
	volatile boolean lostAtEnd;

	Hold(String holder, String name, long token, long startMillis) {
		this(holder, name, token, startMillis, null);
	}

	Hold(String holder, String name, long token, long startMillis, Object grantedBy) {
		this(holder, name, token, startMillis, grantedBy, false);
	}

	private Hold(String holder, String name, long token, long startMillis, Object grantedBy, boolean restored) {
		this.holder = holder;
		this.name = name;
		this.token = token;
		this.startMillis = startMillis;
		this.grantedBy = grantedBy;
		this.restored = restored;
	}

	/** The second part of a section, under a lease restored by {@code restoredBy} from a hand-over. */
	static Hold restored(String holder, String name, long token, long startMillis, Object restoredBy) {
		return new Hold(holder, name, token, startMillis, restoredBy, true);
	}

	@Override
	public String toString() {
		return this.holder + " (token " + this.token + ", from " + this.startMillis + " ms"
				+ ((this.endMillis != Long.MAX_VALUE) ? " to " + this.endMillis + " ms" : "")
				+ (this.lostAtEnd ? ", lost" : "") + ")";
	}

}
