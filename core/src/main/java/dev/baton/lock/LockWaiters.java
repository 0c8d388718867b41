package dev.baton.lock;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Where the threads of this JVM wait for locks. Waiters of one lock share a room: one
 * subscription to the lock's release channel, and a turn so that only the first of them asks
 * Redis while the others wait in line behind it. A release, published by Redis or made by this
 * JVM, wakes the thread whose turn it is; without one it tries again when the holder's lease
 * would run out.
 */
final class LockWaiters implements AutoCloseable {

	/** How long a new room waits for Redis to confirm its subscription before it goes on anyway. */
	private static final long SUBSCRIBE_TIMEOUT_MILLIS = 1000;

	private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

	private final Map<String, Room> rooms = new ConcurrentHashMap<>();


	LockWaiters(RedisConnectionFactory connectionFactory) {
		this.container.setConnectionFactory(connectionFactory);
		// Listeners only signal a condition: no need for a thread per message.
		this.container.setTaskExecutor(Runnable::run);
		this.container.setBeanName("baton-lock-waiters");
		// The subscription closes for good when its last channel is unsubscribed, which fails rooms
		// that subscribe at that moment; one channel that nobody publishes on keeps it open.
		this.container.setMessageListeners(Map.of((MessageListener) (message, pattern) -> {
		}, List.of(ChannelTopic.of("baton:lock:waiters-anchor"))));
		this.container.afterPropertiesSet();
		this.container.start();
	}

	/** One attempt to take the lock. */
	interface Attempt<T> {

		/** The acquired result, or {@code null} with {@link #retryInMillis()} set. */
		@Nullable T attempt();

		/** After a failed attempt, when the holder's lease runs out. */
		long retryInMillis();

	}

	/**
	 * Waits in the lock's room until an attempt succeeds or the wait runs out.
	 * @param waitNanos how long to wait; {@link Long#MAX_VALUE} waits for ever
	 * @return the attempt's result, or {@code null} when the wait ran out
	 * @throws InterruptedException if interrupted while {@code interruptible}
	 */
	<T> @Nullable T await(String channel, long waitNanos, boolean interruptible, Attempt<T> attempt)
			throws InterruptedException {
		Wait wait = new Wait(waitNanos, interruptible);
		Room room = enter(channel);
		try {
			if (!wait.take(room.turn)) {
				return null;
			}
			try {
				room.awaitSubscription();
				while (true) {
					long releases = room.releases();
					T result = attempt.attempt();
					if (result != null) {
						return result;
					}
					long remaining = wait.remainingNanos();
					if (remaining <= 0) {
						return null;
					}
					long retry = TimeUnit.MILLISECONDS.toNanos(Math.max(attempt.retryInMillis(), 1));
					room.awaitRelease(releases, Math.min(remaining, retry), wait);
				}
			}
			finally {
				room.turn.unlock();
			}
		}
		finally {
			leave(room);
			wait.restoreInterrupt();
		}
	}

	/** Wakes this JVM's waiters of a lock that this JVM released. */
	void released(String channel) {
		Room room = this.rooms.get(channel);
		if (room != null) {
			room.signal();
		}
	}

	private Room enter(String channel) {
		Room room = this.rooms.compute(channel, (key, existing) -> {
			Room entered = (existing != null) ? existing : new Room(key);
			entered.users++;
			return entered;
		});
		room.subscribe();
		return room;
	}

	private void leave(Room room) {
		boolean empty = this.rooms.computeIfPresent(room.channel.getTopic(), (key, existing) -> {
			existing.users--;
			return (existing.users == 0) ? null : existing;
		}) == null;
		if (empty) {
			this.container.removeMessageListener(room, room.channel);
		}
	}

	@Override
	public void close() {
		this.container.stop();
		try {
			this.container.destroy();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not close the lock waiters' subscription", ex);
		}
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

		boolean take(ReentrantLock turn) throws InterruptedException {
			while (true) {
				try {
					return turn.tryLock(remainingNanos(), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					interrupted(ex);
				}
			}
		}

		void await(Condition condition, long nanos) throws InterruptedException {
			try {
				condition.awaitNanos(nanos);
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

		private final ReentrantLock turn = new ReentrantLock(true);

		private final ReentrantLock signals = new ReentrantLock();

		private final Condition released = this.signals.newCondition();

		private final CountDownLatch subscribed = new CountDownLatch(1);

		private boolean subscribing;

		private long releases;

		/** Guarded by the rooms map's compute. */
		private int users;

		Room(String channel) {
			this.channel = ChannelTopic.of(channel);
		}

		void subscribe() {
			this.signals.lock();
			try {
				if (this.subscribing) {
					return;
				}
				this.subscribing = true;
			}
			finally {
				this.signals.unlock();
			}
			LockWaiters.this.container.addMessageListener(this, this.channel);
		}

		void awaitSubscription() throws InterruptedException {
			// Bounded: a missed release only delays the next attempt to the holder's lease end.
			this.subscribed.await(SUBSCRIBE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
		}

		long releases() {
			this.signals.lock();
			try {
				return this.releases;
			}
			finally {
				this.signals.unlock();
			}
		}

		void awaitRelease(long seen, long nanos, Wait wait) throws InterruptedException {
			long deadline = System.nanoTime() + nanos;
			this.signals.lock();
			try {
				long remaining = nanos;
				while (this.releases == seen && remaining > 0) {
					wait.await(this.released, remaining);
					remaining = deadline - System.nanoTime();
				}
			}
			finally {
				this.signals.unlock();
			}
		}

		void signal() {
			this.signals.lock();
			try {
				this.releases++;
				this.released.signalAll();
			}
			finally {
				this.signals.unlock();
			}
		}

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			signal();
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			this.subscribed.countDown();
		}

	}

}
