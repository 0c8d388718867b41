package dev.baton.queue.redis;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Listens to the queues' wake channels over one pub/sub connection, opened when the first
 * listener registers.
 */
final class WakeChannels implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(WakeChannels.class);

	private final RedisConnectionFactory connectionFactory;

	private @Nullable RedisMessageListenerContainer container;

	private boolean closed;

	WakeChannels(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Call the listener on every message on the channel until the returned handle is closed.
	 */
	synchronized AutoCloseable listen(String channel, Runnable listener) {
		if (this.closed) {
			throw new IllegalStateException("Delay queues are closed");
		}
		RedisMessageListenerContainer container = container();
		MessageListener messageListener = (message, pattern) -> notify(listener, channel);
		ChannelTopic topic = new ChannelTopic(channel);
		container.addMessageListener(messageListener, topic);
		return () -> container.removeMessageListener(messageListener, topic);
	}

	private static void notify(Runnable listener, String channel) {
		try {
			listener.run();
		}
		catch (RuntimeException ex) {
			logger.warn("Wake-up listener of " + channel + " failed", ex);
		}
	}

	private RedisMessageListenerContainer container() {
		RedisMessageListenerContainer container = this.container;
		if (container == null) {
			container = new RedisMessageListenerContainer();
			container.setConnectionFactory(this.connectionFactory);
			// Listeners return quickly: run them on the subscription thread, not a thread per message.
			container.setTaskExecutor(Runnable::run);
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

	@Override
	public synchronized void close() {
		this.closed = true;
		RedisMessageListenerContainer container = this.container;
		this.container = null;
		if (container != null) {
			container.stop();
			try {
				container.destroy();
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not close the wake-up subscription", ex);
			}
		}
	}

}
