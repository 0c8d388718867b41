package dev.baton.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.baton.queue.spi.WakeSignal;

/**
 * What a {@link ClaimPacer} has seen of other instances' claims: which instances claim (its peers)
 * and what each partition's latest claim left due. Kept apart from the pacer's waiting so that
 * the question "did another instance take these tasks?" reads on its own. Not thread-safe: the
 * pacer calls it under its lock.
 */
final class PeerClaims {

	/** How long another instance counts as a peer after its last claim was seen. */
	private static final long PEER_NANOS = TimeUnit.MINUTES.toNanos(1);

	/** The longest random wait before a claim, whatever the number of peers. */
	private static final long MAX_JITTER_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

	/** The random wait before a claim per peer, at least: several signal trips. */
	private static final long MIN_JITTER_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	/** The latest claim by another instance that took tasks, by channel. */
	private final Map<String, TakenMark> taken = new HashMap<>();

	/** When other instances were last seen to claim, as {@link System#nanoTime()}. */
	private final Map<String, Long> peers = new HashMap<>();

	/**
	 * Notes another instance's claim.
	 * @param number the signal's number in the order signals came
	 */
	void claimed(long number, WakeSignal.Taken signal) {
		this.taken.put(signal.channel(), new TakenMark(number, signal));
		this.peers.put(signal.claimer(), System.nanoTime());
	}

	/** How many other instances were seen to claim in the last minute. */
	int count() {
		long now = System.nanoTime();
		this.peers.values().removeIf((seen) -> now - seen > PEER_NANOS);
		return this.peers.size();
	}

	/**
	 * A random wait before claiming, so that the first of several woken instances takes the
	 * tasks: longer with more peers and slower claims, at most 20 ms.
	 * @param claimNanos how long this container's last claim took
	 */
	long jitterNanos(long claimNanos) {
		long step = Math.max(MIN_JITTER_STEP_NANOS, 2 * claimNanos);
		long jitter = Math.min(MAX_JITTER_NANOS, step * count());
		return ThreadLocalRandom.current().nextLong(jitter + 1);
	}

	/**
	 * Until when the latest claim on {@code channel}, if it came after signal {@code after}, left
	 * nothing due ({@link Instant#MAX} for never); {@code null} if there is no such claim or it
	 * left tasks due.
	 */
	@Nullable Instant nothingDueUntil(String channel, long after) {
		return nothingDueUntil(this.taken.get(channel), after);
	}

	/** As {@link #nothingDueUntil(String, long)}, on a queue of one partition, whose one channel it is. */
	@Nullable Instant nothingDueUntilOnlyChannel(long after) {
		return this.taken.isEmpty() ? null : nothingDueUntil(this.taken.values().iterator().next(), after);
	}

	private static @Nullable Instant nothingDueUntil(@Nullable TakenMark mark, long after) {
		if (mark == null || mark.number() <= after) {
			return null;
		}
		Duration nextDueIn = mark.signal().nextDueIn();
		if (nextDueIn == null) {
			return Instant.MAX;
		}
		return nextDueIn.isZero() ? null : mark.signal().serverTime().plus(nextDueIn);
	}

	private record TakenMark(long number, WakeSignal.Taken signal) {

	}

}
