package dev.baton.queue.spi;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a queue's wake channel told its consumers.
 */
public sealed interface WakeSignal {

	/**
	 * A task falls due before every task that waited in its partition.
	 * @param channel the partition's wake channel
	 * @param at when it falls due, Redis time, or {@code null} for now
	 */
	record Due(String channel, @Nullable Instant at) implements WakeSignal {

	}

	/**
	 * A claim took tasks from a partition.
	 * @param channel the partition's wake channel
	 * @param own whether this consumer made the claim
	 * @param claimer which consumer made it
	 * @param serverTime the Redis clock when it claimed
	 * @param nextDueIn what the claim left: how long until the partition's next task falls due or
	 * an in-flight delivery expires, zero if tasks are still due, {@code null} if nothing waits
	 */
	record Taken(String channel, boolean own, String claimer, Instant serverTime,
			@Nullable Duration nextDueIn) implements WakeSignal {

	}

	/**
	 * The subscription was confirmed, at first or after a reconnect: signals published meanwhile
	 * are lost, so anything may be due.
	 */
	record Subscribed() implements WakeSignal {

	}

	/**
	 * Reads a message of a wake channel.
	 * @param channel the channel
	 * @param message the message
	 * @param consumer this consumer's id, to tell its own claims
	 * @return the signal; a message it cannot read wakes as a task due now would
	 */
	static WakeSignal parse(String channel, String message, String consumer) {
		try {
			if (message.startsWith("due:")) {
				return new Due(channel, Instant.ofEpochMilli(Long.parseLong(message.substring(4))));
			}
			if (message.startsWith("taken:")) {
				String[] parts = message.split(":");
				long nextDueIn = Long.parseLong(parts[3]);
				return new Taken(channel, parts[1].equals(consumer), parts[1],
						Instant.ofEpochMilli(Long.parseLong(parts[2])), (nextDueIn < 0) ? null : Duration.ofMillis(nextDueIn));
			}
		}
		catch (RuntimeException ex) {
			// An instance of another version: wake as for a task due now.
		}
		return new Due(channel, null);
	}

}
