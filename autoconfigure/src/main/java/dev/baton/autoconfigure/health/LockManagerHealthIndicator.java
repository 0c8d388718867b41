package dev.baton.autoconfigure.health;

import java.time.Duration;

import dev.baton.lock.RedisLockManager;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the lock manager: UP while Redis answers within the lock command timeout and the
 * watchdog's last renewal succeeded; DOWN otherwise, since held locks then run out unrenewed.
 */
final class LockManagerHealthIndicator extends AbstractHealthIndicator {

	private final RedisLockManager lockManager;

	LockManagerHealthIndicator(RedisLockManager lockManager) {
		super("Redis did not answer the lock manager");
		this.lockManager = lockManager;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Duration roundTrip = this.lockManager.ping();
		Throwable renewalFailure = this.lockManager.lastRenewalFailure();
		builder.status((renewalFailure != null) ? "DOWN" : "UP")
			.withDetail("roundTripMillis", roundTrip.toMillis())
			.withDetail("heldLocks", this.lockManager.heldCount());
		if (this.lockManager.lastRenewal() != null) {
			builder.withDetail("lastRenewal", this.lockManager.lastRenewal().toString());
		}
		if (renewalFailure != null) {
			builder.withDetail("renewalFailure", String.valueOf(renewalFailure.getMessage()));
		}
	}

}
