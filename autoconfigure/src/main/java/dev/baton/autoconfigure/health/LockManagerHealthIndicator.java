package dev.baton.autoconfigure.health;

import java.time.Duration;
import java.time.Instant;

import dev.baton.lock.LockManagerStatus;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the lock manager: UP while its store (Redis) answers within the lock command timeout
 * and the watchdog's last renewal succeeded; DOWN otherwise, since held locks then run out
 * unrenewed.
 */
final class LockManagerHealthIndicator extends AbstractHealthIndicator {

	private final LockManagerStatus lockManager;

	LockManagerHealthIndicator(LockManagerStatus lockManager) {
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
		Instant lastRenewal = this.lockManager.lastRenewal();
		if (lastRenewal != null) {
			builder.withDetail("lastRenewal", lastRenewal.toString());
		}
		if (renewalFailure != null) {
			builder.withDetail("renewalFailure", String.valueOf(renewalFailure.getMessage()));
		}
	}

}
