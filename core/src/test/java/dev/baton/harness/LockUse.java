package dev.baton.harness;

/**
 * One call of a worker on a lock, from the start of its acquisition until its release returned
 * (or its refusal was seen): while it runs, the key may hold its owner id. The liveness check
 * excuses by it an owner of the caller's manager that another call of the same instance put there.
 */
final class LockUse {

	/**
	 * How long before the caller learns of a grant Redis may have made it: a command timeout, and
	 * more for a loaded machine.
	 */
	static final long GRANT_REPLY_MILLIS = 1000;

	final String caller;

	final String name;

	/** The instance of the caller: its lock manager at the time, or the one before a restart. */
	final int instance;

	final long startMillis;

	volatile long endMillis = Long.MAX_VALUE;

	/**
	 * When the caller learned it acquired the lock (or entered a {@code @DistributedLock} method's
	 * body), or {@link Long#MAX_VALUE} if it never did.
	 */
	volatile long grantedMillis = Long.MAX_VALUE;

	/**
	 * Whether a command of the call went unanswered (a {@code LockUnavailableException}, a release
	 * unconfirmed): its owner may then stay in Redis until its lease runs out, as documented.
	 */
	volatile boolean replyLost;

	LockUse(String caller, String name, int instance, long startMillis) {
		this.caller = caller;
		this.name = name;
		this.instance = instance;
		this.startMillis = startMillis;
	}

	void granted(long atMillis) {
		if (this.grantedMillis == Long.MAX_VALUE) {
			this.grantedMillis = atMillis;
		}
	}

	/**
	 * Whether the call may have had its owner in the key in {@code [fromMillis, toMillis]}: from a
	 * little before it learned of its grant (Redis granted it a reply earlier, within a command
	 * timeout) until its release returned; with a reply lost, from its start until
	 * {@code lingerMillis} after its end. A call refused in the end, with all its replies, had no
	 * owner there that it knew of; a waiter granted only later was not holding then.
	 */
	boolean mayHoldBetween(long fromMillis, long toMillis, long lingerMillis) {
		long end = this.endMillis;
		long start;
		if (this.replyLost) {
			start = this.startMillis;
			end = (end != Long.MAX_VALUE) ? end + lingerMillis : end;
		}
		else if (this.grantedMillis != Long.MAX_VALUE) {
			start = Math.max(this.startMillis, this.grantedMillis - GRANT_REPLY_MILLIS);
		}
		else {
			return false;
		}
		return start <= toMillis && end >= fromMillis;
	}

	@Override
	public String toString() {
		return this.caller + " on " + this.name + " (from " + this.startMillis + " ms"
				+ ((this.endMillis != Long.MAX_VALUE) ? " to " + this.endMillis + " ms" : "")
				+ ((this.grantedMillis != Long.MAX_VALUE) ? ", granted at " + this.grantedMillis + " ms" : "")
				+ (this.replyLost ? ", a reply lost" : "") + ")";
	}

}
