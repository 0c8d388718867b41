package dev.baton.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

import dev.baton.internal.BatonThreads;
import dev.baton.queue.spi.WakeSignal;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Listens to the queues' wake channels over one pub/sub connection, opened when the first
 * listener registers. Listeners are called on one thread of Baton's ({@value #SIGNALS}), in the
 * order the signals came, never on the Redis client's event loop; a subscription that blocks a
 * thread (a client without asynchronous pub/sub) runs on one of Baton's too
 * ({@value #SUBSCRIPTION}).
 */
final class WakeChannels implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(WakeChannels.class);

	static final String SIGNALS = "baton-queue-wake-ups";

	static final String SUBSCRIPTION = "baton-queue-wake-ups-subscription";

	private final RedisConnectionFactory connectionFactory;

	/** Calls the listeners; its thread ends after a minute without a signal. */
	private final ExecutorService signals;

	private final Executor subscription;

	private @Nullable RedisMessageListenerContainer container;

	private boolean closed;

	WakeChannels(BatonThreads threads, RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.signals = threads.signals(SIGNALS, Duration.ofMinutes(1));
		this.subscription = threads.threadPerTask(SUBSCRIPTION);
	}

	/**
	 * Call the listener with every signal on the channels (those of a queue's partitions) until
	 * the returned handle is closed.
	 * @param consumer the listening consumer's id, to tell its own claims
	 */
	synchronized AutoCloseable listen(List<String> channels, String consumer, Consumer<WakeSignal> listener) {
		if (this.closed) {
			throw new IllegalStateException("Delay queues are closed");
		}
		RedisMessageListenerContainer container = container();
		MessageListener messageListener = new WakeListener(consumer, listener);
		List<ChannelTopic> topics = channels.stream().map(ChannelTopic::new).toList();
		container.addMessageListener(messageListener, topics);
		return () -> container.removeMessageListener(messageListener, topics);
	}

	/**
	 * Signals every message, and also whenever the channel is subscribed again: a wake-up
	 * published while the connection was down is lost, so a reconnect must wake the consumer
	 * rather than leave it to its idle poll.
	 */
	private record WakeListener(String consumer, Consumer<WakeSignal> listener)
			implements MessageListener, SubscriptionListener {

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			String channel = new String(message.getChannel(), StandardCharsets.UTF_8);
			signal(WakeSignal.parse(channel, new String(message.getBody(), StandardCharsets.UTF_8), this.consumer));
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			signal(new WakeSignal.Subscribed());
		}

		private void signal(WakeSignal signal) {
			try {
				this.listener.accept(signal);
			}
			catch (RuntimeException ex) {
				logger.warn("Wake-up listener of consumer " + this.consumer + " failed", ex);
			}
		}

	}

	private RedisMessageListenerContainer container() {
		RedisMessageListenerContainer container = this.container;
		if (container == null) {
			container = new RedisMessageListenerContainer();
			container.setConnectionFactory(this.connectionFactory);
			// Listeners return quickly: one thread for all of them, not a thread per message.
			container.setTaskExecutor(this.signals);
			// Not a scheduler, as Runnable::run was not: Spring then retries a failed subscription on the
			// thread it failed on, as before, rather than on a schedule of its own.
			container.setSubscriptionExecutor(this.subscription);
			container.afterPropertiesSet();
			try {
				container.start();
			}
			catch (RuntimeException ex) {
				// Redis is unreachable: leave nothing running, the next listener tries again.
				try {
					container.destroy();
				}
				catch (Exception cleanup) {
					ex.addSuppressed(cleanup);
				}
				throw ex;
			}
			this.container = container;
		}
		return container;
	}

	/**
	 * Subscribes again on a new connection: after a switch of the primary the old subscription
	 * listens to the old primary, which does not hear the new primary's wake-ups until it is
	 * demoted. Every listener is then signalled as subscribed, so that it claims at once.
	 */
	synchronized void resubscribe() {
		RedisMessageListenerContainer container = this.container;
		if (container != null && !this.closed) {
			container.stop();
			container.start();
		}
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		RedisMessageListenerContainer container = this.container;
		this.container = null;
		try {
			if (container != null) {
				container.stop();
				container.destroy();
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not close the wake-up subscription", ex);
		}
		finally {
			// Signals still in line are for consumers that stop too: they are dropped.
			this.signals.shutdownNow();
		}
	}

}
