package dev.baton.lock.spi;

import java.time.Duration;

import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;

/**
 * What a delayed task that holds a lock asks of the lock manager: the task keeps the
 * {@link LeaseToken} of a lease {@linkplain LockLease#handOver() handed over} to it, and each of
 * its deliveries, on whichever instance, extends and finally releases the lock under that token
 * without taking it over, so that a delivery that dies leaves the lock to the next one. Every
 * operation is owner checked in one step: a token whose lock ran out, was released or was taken
 * changes nothing.
 */
public interface TokenLeases {

	/**
	 * Keep the token's lock for at least {@code atLeast} from now (Redis time); never shortens it.
	 * A lock found lost is reported as the watchdog reports a loss ({@code LockLostEvent}, metric).
	 * @param token the token
	 * @param atLeast how long the lock stays held at least, positive
	 * @return {@code false} if the token no longer holds its lock
	 */
	boolean extend(LeaseToken token, Duration atLeast);

	/**
	 * The lease a holder of the token keeps the lock for beyond what it waits for: the token's lease
	 * time, or the watchdog lease of the lock manager when the lock was taken without one.
	 * @param token the token
	 * @return the lease, positive
	 */
	Duration leaseOf(LeaseToken token);

	/**
	 * Release the token's lock if the token still holds it.
	 * @param token the token
	 * @return {@code false} if it no longer held the lock, so nothing was freed
	 */
	boolean release(LeaseToken token);

	/**
	 * Give a lease back the lock it handed over to {@code token}, when the token was not used (a
	 * task that was not scheduled because its id was taken): the lease holds the lock again as
	 * before, renewed here if it was.
	 * @param lease the lease that handed the lock over
	 * @param token the token it gave
	 * @return {@code false} if the token no longer held the lock, so the lease stays lost
	 */
	boolean takeBack(LockLease lease, LeaseToken token);

}
