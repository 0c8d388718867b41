package dev.baton.lock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

import dev.baton.internal.BatonThreads;
import dev.baton.lock.LockUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The subscription of this JVM's lock waiters to the release channels of the locks they wait
 * for: one pub/sub connection, started when the first waiter needs it.
 *
 * <p>Every call to Redis runs on one thread of its own, in the order asked, so that a channel's
 * unsubscribe always goes out before its next subscribe. Those calls wait for the connection's
 * own timeouts (60 s by default), so callers never wait for them longer than the lock command
 * timeout, and never for an unsubscribe: a caller that has its answer is not held up, and a
 * subscription that hangs holds up nobody past that timeout.
 *
 * <p>Listeners are called on one thread of Baton's ({@value #SIGNALS}), in the order the
 * messages came, never on the Redis client's event loop; a subscription that blocks a thread (a
 * client without asynchronous pub/sub) runs on one of Baton's too ({@value #SUBSCRIPTION}).
 */
final class ReleaseSubscriptions implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ReleaseSubscriptions.class);

	static final String SIGNALS = "baton-lock-waiters";

	static final String SUBSCRIPTION = "baton-lock-waiters-subscription";

	private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

	private final ExecutorService calls;

	/** Calls the listeners; its thread ends after a minute without a message. */
	private final ExecutorService signals;

	private final Duration timeout;

	private final Anchor anchor = new Anchor();

	private final String anchorChannel;

	private final ReentrantLock starting = new ReentrantLock();

	/** Whether the subscription is up: Redis confirmed the anchor channel. */
	private volatile boolean listening;

	/**
	 * @param anchorChannel a channel that nobody publishes on, which keeps the subscription open
	 * @param timeout how long a caller waits for a call to Redis
	 */
	ReleaseSubscriptions(BatonThreads threads, RedisConnectionFactory connectionFactory, String anchorChannel,
			Duration timeout) {
		this.calls = threads.singleThread("baton-lock-subscriptions");
		this.signals = threads.signals(SIGNALS, Duration.ofMinutes(1));
		this.timeout = timeout;
		this.anchorChannel = anchorChannel;
		this.container.setConnectionFactory(connectionFactory);
		// Listeners only signal a condition: one thread for all of them, not a thread per message.
		this.container.setTaskExecutor(this.signals);
		// Not a scheduler, as Runnable::run was not: Spring then retries a failed subscription on the
		// thread it failed on, as before, rather than on a schedule of its own.
		this.container.setSubscriptionExecutor(threads.threadPerTask(SUBSCRIPTION));
		this.container.setBeanName("baton-lock-waiters");
		// The subscription closes for good when its last channel is unsubscribed, which fails rooms
		// that subscribe at that moment; one channel that nobody publishes on keeps it open.
		this.container.setMessageListeners(Map.of(this.anchor, List.of(ChannelTopic.of(anchorChannel))));
		this.container.afterPropertiesSet();
	}

	/**
	 * Subscribes a listener to a channel, starting the subscription first if it is not up.
	 * @throws LockUnavailableException if Redis does not confirm within the timeout; the listener
	 * is then removed again
	 */
	void subscribe(MessageListener listener, ChannelTopic channel) {
		listen(channel);
		Throwable failure = await(call(() -> this.container.addMessageListener(listener, channel)));
		if (failure != null) {
			unsubscribe(listener, channel);
			throw new LockUnavailableException(
					"Redis did not subscribe to the release channel " + channel.getTopic() + ": " + reason(failure),
					failure);
		}
	}

	/**
	 * Removes a listener from its channel, without waiting. A failure is only logged: a channel
	 * left subscribed only delivers messages that nobody listens to.
	 */
	void unsubscribe(MessageListener listener, ChannelTopic channel) {
		call(() -> this.container.removeMessageListener(listener, channel)).whenComplete((done, failure) -> {
			if (failure != null) {
				logger.warn("Could not unsubscribe from the release channel " + channel.getTopic() + ": "
						+ reason(failure));
			}
		});
	}

	/**
	 * Starts the subscription when the first waiter needs it, not at construction, so that the
	 * application starts while Redis is down, and waits until Redis confirms it: channels added
	 * while the container still starts could be missed. A start that failed is tried again by the
	 * next waiter.
	 */
	private void listen(ChannelTopic channel) {
		if (this.listening) {
			return;
		}
		if (!tryLock(this.starting)) {
			throw unavailable(channel, "another waiter is still starting the subscription");
		}
		try {
			if (this.listening) {
				return;
			}
			CompletableFuture<Void> confirmed = this.anchor.expectSubscription();
			call(this.container::start).whenComplete((done, failure) -> {
				if (failure != null) {
					confirmed.completeExceptionally(failure);
				}
			});
			Throwable failure = await(confirmed);
			if (failure != null) {
				call(this.container::stop);
				throw unavailable(channel, "the subscription to " + this.anchorChannel
						+ ", which keeps it open, failed: " + reason(failure));
			}
			this.listening = true;
		}
		finally {
			this.starting.unlock();
		}
	}

	/** Redis's own words (a denial names the command, NOPERM), not those of the wrappers around them. */
	private static @Nullable String reason(Throwable failure) {
		return NestedExceptionUtils.getMostSpecificCause(failure).getMessage();
	}

	private LockUnavailableException unavailable(ChannelTopic channel, @Nullable String why) {
		return new LockUnavailableException("Redis did not subscribe to the release channel " + channel.getTopic()
				+ ": " + why, new TimeoutException(why));
	}

	/**
	 * Runs a call to Redis on the subscriptions' thread, after those asked before it. The thread is
	 * never interrupted: Lettuce fails a blocking pub/sub command on an interrupted thread.
	 */
	private CompletableFuture<Void> call(Runnable call) {
		try {
			return CompletableFuture.runAsync(call, this.calls);
		}
		catch (RuntimeException ex) {
			// Closed
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Waits for a call up to the timeout, setting interrupts aside until it is over.
	 * @return why it failed or did not end in time, or {@code null} if it succeeded
	 */
	private @Nullable Throwable await(Future<?> call) {
		long deadline = System.nanoTime() + this.timeout.toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					call.get(Math.max(deadline - System.nanoTime(), 0), TimeUnit.NANOSECONDS);
					return null;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (ExecutionException ex) {
					return ex.getCause();
				}
				catch (TimeoutException ex) {
					return new TimeoutException("no confirmation within " + this.timeout.toMillis() + " ms");
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private boolean tryLock(ReentrantLock lock) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return lock.tryLock(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Stops the subscription, waiting for it at most the timeout. */
	@Override
	public void close() {
		Throwable failure = await(call(() -> {
			this.container.stop();
			try {
				this.container.destroy();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}));
		this.calls.shutdown();
		// Messages still in line are for waiters of a closed manager: they are dropped.
		this.signals.shutdownNow();
		if (failure != null) {
			logger.warn("Could not close the lock waiters' subscription: " + failure.getMessage());
		}
	}

	/** The channel that keeps the subscription open, and tells when Redis confirmed it. */
	private static final class Anchor implements MessageListener, SubscriptionListener {

		private volatile CompletableFuture<Void> subscribed = new CompletableFuture<>();

		CompletableFuture<Void> expectSubscription() {
			this.subscribed = new CompletableFuture<>();
			return this.subscribed;
		}

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			this.subscribed.complete(null);
		}

	}

}
