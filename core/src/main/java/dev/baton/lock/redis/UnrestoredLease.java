package dev.baton.lock.redis;

import java.time.Duration;

import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;

/**
 * What restoring a token gives when its lock ran out, was released or is held by another owner:
 * never valid, and every use that needs the lock says so. Releasing it changes nothing, as for any
 * lost lease.
 */
final class UnrestoredLease implements LockLease {

	private final LeaseToken token;

	UnrestoredLease(LeaseToken token) {
		this.token = token;
	}

	@Override
	public String name() {
		return this.token.name();
	}

	@Override
	public long fencingToken() {
		throw lost("has no fencing token");
	}

	@Override
	public boolean isValid() {
		return false;
	}

	@Override
	public void release() {
	}

	@Override
	public void release(Duration lockAtLeastFor) {
	}

	@Override
	public void extend(Duration leaseTime) {
		throw lost("cannot be extended");
	}

	@Override
	public LeaseToken handOver() {
		throw lost("cannot be handed over");
	}

	private LeaseLostException lost(String what) {
		return new LeaseLostException("Lock '" + name() + "' was not restored from token #" + this.token.fingerprint()
				+ ", so this lease " + what + ": the lock ran out, was released, or another owner holds it (the token "
				+ "may have been restored before)");
	}

	@Override
	public String toString() {
		return "LockLease[" + name() + ", not restored from #" + this.token.fingerprint() + "]";
	}

}
