package dev.baton.lock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.redis.LockCommands.Released;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;

/**
 * Where the threads of this JVM wait for locks. Waiters of one lock share a room: one
 * subscription to the lock's release channel, and a line in order of arrival. Only the first in
 * line asks Redis: a release, published by Redis or made by this JVM, wakes it, and without one
 * it asks again when the holder's lease would run out.
 *
 * <p>A holder in this JVM hands the lock to the first waiter in line that is not asking Redis at
 * that moment, without a Redis call where the lease allows it ({@link RedisLockLease#passTo}),
 * else in one script that changes the owner: the lock is never free in between, so no other
 * thread or instance can take it, and the waiter needs no round trip of its own. While a
 * thread of this JVM holds the lock, nobody in line asks Redis. So that waiters on other
 * instances are not starved, after {@value #MAX_TURNS_IN_A_ROW} turns in a row within this JVM
 * the lock is released through Redis; if other instances' waiters wait for it (the waiting
 * marker names their instances), this JVM's waiters stand back until one of those has had it, or
 * for at most {@value #YIELD_MILLIS} ms.
 */
final class LockWaiters implements AutoCloseable {

	/** Turns within this JVM before a release goes through Redis, open to every instance. */
	static final int MAX_TURNS_IN_A_ROW = 16;

	/** How long this JVM's waiters stand back after yielding the lock to another instance's. */
	static final long YIELD_MILLIS = 10;

	/** Cap of one wait for a release, so that a waiter refreshes its waiting marker. */
	static final long MAX_WAIT_STEP_MILLIS = 30_000;

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
	LockWaiters(RedisConnectionFactory connectionFactory, LockCommands commands, String ownerPrefix, String keyPrefix) {
		this.commands = commands;
		this.ownerPrefix = ownerPrefix.getBytes(StandardCharsets.UTF_8);
		this.subscriptions = new ReleaseSubscriptions(connectionFactory, keyPrefix + "waiters-anchor",
				commands.timeout());
	}

	/** One waiter's attempts to take the lock. */
	interface Attempt {

		/** The acquired lease, or {@code null} with {@link #retryInMillis()} set. */
		@Nullable RedisLockLease attempt();

		/** After a failed attempt, when the holder's lease runs out. */
		long retryInMillis();

		/** Takes the lock straight from a holder in this JVM. */
		HandOff takeOver(RedisLockLease holder);

	}

	/**
	 * What a hand-off did.
	 * @param lease the waiter's lease, or {@code null} when it did not get the lock: the holder had
	 * lost it, or it was refused (then the holder's lock is released and the waiter asks Redis)
	 * @param holderHeld whether the holder still held the lock
	 */
	record HandOff(@Nullable RedisLockLease lease, boolean holderHeld) {

		/** The holder had lost the lock: nothing to hand over. */
		static final HandOff LOST = new HandOff(null, false);

		/** The holder's lock was released instead of handed over: the waiter must ask Redis. */
		static final HandOff REFUSED = new HandOff(null, true);

		static HandOff to(RedisLockLease lease) {
			return new HandOff(lease, true);
		}

	}

	/**
	 * Waits in line in the lock's room until an attempt succeeds, a holder of this JVM hands the
	 * lock over, or the wait runs out.
	 * @param waitNanos how long to wait; {@link Long#MAX_VALUE} waits for ever
	 * @return the lease, or {@code null} when the wait ran out
	 * @throws InterruptedException if interrupted while {@code interruptible}
	 */
	@Nullable RedisLockLease await(String channel, long waitNanos, boolean interruptible, Attempt attempt)
			throws InterruptedException {
		Wait wait = new Wait(waitNanos, interruptible);
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
		Claim claim = (room != null) ? room.claim() : Claim.NOBODY;
		if (claim.yield()) {
			try {
				Released released = this.commands.yieldToAll(holder.keys(), holder.owner());
				if (released == Released.AWAITED_ELSEWHERE) {
					room.standBack();
				}
				return released;
			}
			finally {
				// Also when Redis did not answer: the lock may be free, and the retry wakes nobody sooner.
				room.signal(false);
			}
		}
		Offer offer = claim.offer();
		if (offer == null) {
			return releaseInRedis(holder.keys(), holder.owner());
		}
		HandOff handOff = null;
		try {
			handOff = offer.waiter.takeOver(holder);
		}
		finally {
			room.complete(offer, (handOff != null) ? handOff.lease() : null);
		}
		return handOff.holderHeld() ? Released.RELEASED : Released.TAKEN;
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
			room.signal(false);
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

	private static long millisToNanos(long millis) {
		return TimeUnit.MILLISECONDS.toNanos(Math.max(Math.min(millis, MAX_WAIT_STEP_MILLIS), 1));
	}

	/** A waiter in line; guarded by its room's signals. */
	private static final class Offer {

		private final Attempt waiter;

		/** Signalled when this waiter is handed the lock or becomes first in line. */
		private final Condition wake;

		private boolean asking;

		private boolean claimed;

		private boolean completed;

		private @Nullable RedisLockLease lease;

		Offer(Attempt waiter, Condition wake) {
			this.waiter = waiter;
			this.wake = wake;
		}

	}

	/**
	 * What a release of this JVM's holder does.
	 * @param offer the waiter to hand the lock to, or {@code null} to release it in Redis
	 * @param yield whether to let every instance's waiters compete for it
	 */
	private record Claim(@Nullable Offer offer, boolean yield) {

		static final Claim NOBODY = new Claim(null, false);

		static final Claim YIELD = new Claim(null, true);

	}

	/** Remaining wait time, and whether interrupts end it. */
	private static final class Wait {

		private final long deadline;

		private final boolean forever;

		private final boolean interruptible;

		private boolean interrupted;

		Wait(long waitNanos, boolean interruptible) {
			this.forever = waitNanos == Long.MAX_VALUE;
			this.deadline = this.forever ? 0 : System.nanoTime() + waitNanos;
			this.interruptible = interruptible;
		}

		long remainingNanos() {
			return this.forever ? Long.MAX_VALUE : this.deadline - System.nanoTime();
		}

		void await(Condition condition, long nanos) throws InterruptedException {
			try {
				condition.awaitNanos(nanos);
			}
			catch (InterruptedException ex) {
				interrupted(ex);
			}
		}

		void await(CountDownLatch latch, long nanos) throws InterruptedException {
			try {
				latch.await(nanos, TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				interrupted(ex);
			}
		}

		// An uninterruptible wait remembers the interrupt and restores it when the wait is over.
		private void interrupted(InterruptedException ex) throws InterruptedException {
			if (this.interruptible) {
				throw ex;
			}
			this.interrupted = true;
		}

		void restoreInterrupt() {
			if (this.interrupted) {
				Thread.currentThread().interrupt();
			}
		}

	}

	/** The waiters of one lock in this JVM. */
	private final class Room implements MessageListener, SubscriptionListener {

		private final ChannelTopic channel;

		private final ReentrantLock signals = new ReentrantLock();

		private final Deque<Offer> line = new ArrayDeque<>();

		private final CountDownLatch subscribed = new CountDownLatch(1);

		/** Releases seen in Redis or made here: the first in line asks Redis after each. */
		private long releases;

		/** The lease of a thread of this JVM that took the lock in this room, until a release. */
		private @Nullable RedisLockLease holder;

		/** Releases of this JVM's holders while this JVM's threads waited, since the last yield. */
		private int turnsInARow;

		/**
		 * Whether this JVM's waiters stand back after yielding: until another instance releases
		 * the lock, or {@link #standingBackUntil}.
		 */
		private boolean standingBack;

		private long standingBackUntil;

		/** Guarded by the rooms map's {@code compute} of this channel. */
		private int users;

		Room(String channel) {
			this.channel = ChannelTopic.of(channel);
		}

		@Nullable RedisLockLease awaitLock(Attempt attempt, Wait wait) throws InterruptedException {
			// Bounded: a missed release only delays the next attempt to the holder's lease end.
			wait.await(this.subscribed,
					Math.min(TimeUnit.MILLISECONDS.toNanos(SUBSCRIBE_TIMEOUT_MILLIS), wait.remainingNanos()));
			this.signals.lock();
			try {
				Offer offer = new Offer(attempt, this.signals.newCondition());
				this.line.addLast(offer);
				try {
					return takeTurns(offer, wait);
				}
				catch (InterruptedException ex) {
					RedisLockLease lease = offer.claimed ? handedOver(offer) : null;
					if (lease == null) {
						throw ex;
					}
					// The hand-off began before the interrupt: take the lock, keep the interrupt.
					Thread.currentThread().interrupt();
					return lease;
				}
				finally {
					leaveLine(offer);
				}
			}
			finally {
				this.signals.unlock();
			}
		}

		/** Waits in line, asking Redis when first, until the lock is taken or the wait runs out. */
		private @Nullable RedisLockLease takeTurns(Offer offer, Wait wait) throws InterruptedException {
			long asked = -1;
			long retryAt = 0;
			while (true) {
				if (offer.claimed) {
					RedisLockLease lease = handedOver(offer);
					if (lease != null) {
						return lease;
					}
					// The holder had lost the lock, or the hand-off was refused: ask Redis, if the wait allows.
					offer.claimed = false;
					offer.completed = false;
					asked = -1;
					if (wait.remainingNanos() <= 0) {
						return null;
					}
				}
				RedisLockLease holder = knownHolder();
				boolean first = this.line.peekFirst() == offer;
				long standingBack = standingBackNanos();
				if (first && holder == null && standingBack == 0
						&& (asked != this.releases || System.nanoTime() - retryAt >= 0)) {
					asked = this.releases;
					RedisLockLease lease = ask(offer);
					if (lease != null) {
						this.holder = lease;
						return lease;
					}
					retryAt = System.nanoTime() + millisToNanos(offer.waiter.retryInMillis());
					continue;
				}
				long remaining = wait.remainingNanos();
				if (remaining <= 0) {
					return null;
				}
				if (first) {
					// Wait for a hand-off while the holder's lease lasts, or for a release until the next try.
					long step = (holder != null) ? millisToNanos(holder.validForMillis())
							: (standingBack > 0) ? standingBack : retryAt - System.nanoTime();
					remaining = Math.min(remaining, Math.max(step, 1));
				}
				wait.await(offer.wake, remaining);
			}
		}

		/** One attempt in Redis, made outside the signals lock so that holders can release meanwhile. */
		private @Nullable RedisLockLease ask(Offer offer) {
			offer.asking = true;
			this.signals.unlock();
			try {
				return offer.waiter.attempt();
			}
			finally {
				this.signals.lock();
				offer.asking = false;
			}
		}

		private @Nullable RedisLockLease handedOver(Offer offer) {
			while (!offer.completed) {
				offer.wake.awaitUninterruptibly();
			}
			return offer.lease;
		}

		private void leaveLine(Offer offer) {
			boolean wasFirst = this.line.peekFirst() == offer;
			this.line.remove(offer);
			if (wasFirst) {
				wakeFirst();
			}
		}

		private void wakeFirst() {
			Offer first = this.line.peekFirst();
			if (first != null) {
				first.wake.signal();
			}
		}

		private @Nullable RedisLockLease knownHolder() {
			return (this.holder != null && this.holder.isValid()) ? this.holder : null;
		}

		/**
		 * Claims the first waiter in line that is not asking Redis, to hand the lock to. Whether
		 * handed over or released here for the first in line to take, the lock stays in this JVM;
		 * after {@value #MAX_TURNS_IN_A_ROW} such turns in a row, it yields.
		 */
		Claim claim() {
			this.signals.lock();
			try {
				if (this.line.isEmpty()) {
					return Claim.NOBODY;
				}
				if (this.turnsInARow >= MAX_TURNS_IN_A_ROW) {
					this.turnsInARow = 0;
					return Claim.YIELD;
				}
				this.turnsInARow++;
				for (Offer offer : this.line) {
					if (!offer.asking && !offer.claimed) {
						offer.claimed = true;
						return new Claim(offer, false);
					}
				}
				return Claim.NOBODY;
			}
			finally {
				this.signals.unlock();
			}
		}

		void complete(Offer offer, @Nullable RedisLockLease lease) {
			this.signals.lock();
			try {
				offer.lease = lease;
				offer.completed = true;
				this.holder = lease;
				offer.wake.signal();
			}
			finally {
				this.signals.unlock();
			}
		}

		/** Lets another instance's waiter take the lock just yielded. */
		void standBack() {
			this.signals.lock();
			try {
				this.standingBack = true;
				this.standingBackUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(YIELD_MILLIS);
			}
			finally {
				this.signals.unlock();
			}
		}

		/** How much longer this JVM's waiters stand back; 0 when they may ask. */
		private long standingBackNanos() {
			long remaining = this.standingBackUntil - System.nanoTime();
			this.standingBack = this.standingBack && remaining > 0;
			return this.standingBack ? remaining : 0;
		}

		/**
		 * Notes a release and wakes the first in line.
		 * @param byOtherInstance whether another instance released the lock, which ends standing back
		 */
		void signal(boolean byOtherInstance) {
			this.signals.lock();
			try {
				this.releases++;
				this.holder = null;
				this.standingBack = this.standingBack && !byOtherInstance;
				wakeFirst();
			}
			finally {
				this.signals.unlock();
			}
		}

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			signal(!isOwn(message.getBody()));
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
