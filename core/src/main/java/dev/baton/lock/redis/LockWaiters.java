package dev.baton.lock.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.baton.internal.BatonThreads;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.redis.LockCommands.Released;
import dev.baton.lock.redis.WaitingLine.Claim;
import dev.baton.lock.redis.WaitingLine.Offer;
import dev.baton.lock.redis.WaitingLine.Waiter;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;

/**
 * Where the threads of this JVM wait for locks. Waiters of one lock share a room: one
 * subscription to the lock's release channel, and a line in order of arrival
 * ({@link WaitingLine}). Only the first in line asks Redis: a release, published by Redis or made
 * by this JVM, wakes it, and without one it asks again when the holder's lease would run out.
 *
 * <p>A holder in this JVM hands the lock to the first waiter in line that is not asking Redis at
 * that moment, without a Redis call where the lease allows it ({@link RedisLockLease#passTo}),
 * else in one script that changes the owner: the lock is never free in between, so no other
 * thread or instance can take it, and the waiter needs no round trip of its own. While a
 * thread of this JVM holds the lock, nobody in line asks Redis. So that waiters on other
 * instances are not starved, the lock goes through Redis now and then, open to every instance
 * ({@link HandOffFairness}).
 */
final class LockWaiters implements AutoCloseable {

	/** How long a new room waits for Redis to confirm its subscription before it goes on anyway. */
	private static final long SUBSCRIBE_TIMEOUT_MILLIS = 1000;

	private final ReleaseSubscriptions subscriptions;

	/** The rooms in use; entering and leaving one is atomic per channel ({@link Map#compute}). */
	private final Map<String, Room> rooms = new ConcurrentHashMap<>();

	private final LockCommands commands;

	/** How this JVM's owner ids begin, which tells its own release messages from other instances'. */
	private final byte[] ownerPrefix;

	/**
	 * @param keyPrefix the lock keys' prefix, which the subscription's anchor channel also carries so
	 * that an ACL granting the prefix's channels grants it; no lock's channel, which begins with the
	 * prefix and a brace
	 */
	LockWaiters(BatonThreads threads, RedisConnectionFactory connectionFactory, LockCommands commands,
			String ownerPrefix, String keyPrefix) {
		this.commands = commands;
		this.ownerPrefix = ownerPrefix.getBytes(StandardCharsets.UTF_8);
		this.subscriptions = new ReleaseSubscriptions(threads, connectionFactory, keyPrefix + "waiters-anchor",
				commands.timeout());
	}

	/**
	 * Waits in line in the lock's room until an attempt succeeds, a holder of this JVM hands the
	 * lock over, or the wait runs out.
	 * @param waitNanos how long to wait; {@link Long#MAX_VALUE} waits for ever
	 * @return the lease, or {@code null} when the wait ran out
	 * @throws InterruptedException if interrupted while {@code interruptible}
	 */
	@Nullable RedisLockLease await(String channel, long waitNanos, boolean interruptible,
			Waiter<RedisLockLease> attempt) throws InterruptedException {
		LockWait wait = new LockWait(waitNanos, interruptible);
		Room room = enter(channel);
		try {
			return room.awaitLock(attempt, wait);
		}
		finally {
			leave(room);
			wait.restoreInterrupt();
		}
	}

	/** Whether threads of this JVM wait for the lock, so that a newcomer should get in line. */
	boolean isAwaited(String channel) {
		return this.rooms.containsKey(channel);
	}

	/**
	 * Releases a lock that this JVM holds: hands it to a waiter in line, if one is ready and the
	 * lock has not been handed on too often in a row; otherwise releases it in Redis.
	 * @param holder the lease being released
	 * @return what became of the lock; {@link Released#TAKEN} also when a hand-off found it lost
	 */
	Released release(RedisLockLease holder) {
		Room room = this.rooms.get(holder.keys().channel());
		Claim<RedisLockLease> claim = (room != null) ? room.line.claim() : Claim.nobody();
		if (claim.yield()) {
			try {
				Released released = this.commands.yieldToAll(holder.keys(), holder.owner());
				if (released == Released.AWAITED_ELSEWHERE) {
					room.line.standBack();
				}
				return released;
			}
			finally {
				// Also when Redis did not answer: the lock may be free, and the retry wakes nobody sooner.
				room.line.signal(false);
			}
		}
		Offer<RedisLockLease> offer = claim.offer();
		if (offer == null) {
			return releaseInRedis(holder.keys(), holder.owner());
		}
		return room.line.handOff(offer, holder).holderHeld() ? Released.RELEASED : Released.TAKEN;
	}

	/**
	 * Deletes a lock in Redis if {@code owner} holds it ({@code ""}: whoever holds it), and wakes
	 * this JVM's waiters.
	 */
	Released releaseInRedis(LockKeys keys, String owner) {
		try {
			return this.commands.release(keys, owner);
		}
		finally {
			// Also when Redis did not answer: the lock may be free, and waiters would sleep to its lease end.
			released(keys.channel());
		}
	}

	/** Wakes this JVM's waiters of a lock that this JVM released in Redis, or lost. */
	void released(String channel) {
		Room room = this.rooms.get(channel);
		if (room != null) {
			room.line.signal(false);
		}
	}

	/**
	 * Enters the room of a channel; the first to enter a room subscribes to its channel.
	 * @throws LockUnavailableException if Redis does not confirm the subscription in time
	 */
	private Room enter(String channel) {
		Room[] created = new Room[1];
		Room room = this.rooms.compute(channel, (key, existing) -> {
			Room entered = (existing != null) ? existing : (created[0] = new Room(channel));
			entered.users++;
			return entered;
		});
		if (created[0] != null) {
			try {
				this.subscriptions.subscribe(room, room.channel);
			}
			catch (RuntimeException ex) {
				leave(room);
				throw ex;
			}
		}
		return room;
	}

	/** Leaves a room; the last to leave unsubscribes from its channel, without waiting for it. */
	private void leave(Room room) {
		boolean[] last = new boolean[1];
		this.rooms.compute(room.channel.getTopic(), (key, existing) -> {
			last[0] = --room.users == 0;
			return last[0] ? null : existing;
		});
		if (last[0]) {
			this.subscriptions.unsubscribe(room, room.channel);
		}
	}

	@Override
	public void close() {
		this.subscriptions.close();
	}

	/** The waiters of one lock in this JVM: their line, and its subscription to the lock's releases. */
	private final class Room implements MessageListener, SubscriptionListener {

		private final ChannelTopic channel;

		private final WaitingLine<RedisLockLease> line = new WaitingLine<>();

		private final CountDownLatch subscribed = new CountDownLatch(1);

		/** Guarded by the rooms map's {@code compute} of this channel. */
		private int users;

		Room(String channel) {
			this.channel = ChannelTopic.of(channel);
		}

		@Nullable RedisLockLease awaitLock(Waiter<RedisLockLease> attempt, LockWait wait) throws InterruptedException {
			// Bounded: a missed release only delays the next attempt to the holder's lease end.
			wait.await(this.subscribed,
					Math.min(TimeUnit.MILLISECONDS.toNanos(SUBSCRIBE_TIMEOUT_MILLIS), wait.remainingNanos()));
			return this.line.await(attempt, wait);
		}

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			this.line.signal(!isOwn(message.getBody()));
		}

		/** Whether the release message names an owner of this JVM. */
		private boolean isOwn(byte[] releasedOwner) {
			byte[] prefix = LockWaiters.this.ownerPrefix;
			return releasedOwner.length >= prefix.length
					&& Arrays.equals(releasedOwner, 0, prefix.length, prefix, 0, prefix.length);
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			this.subscribed.countDown();
		}

	}

}
