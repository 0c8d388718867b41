package dev.baton.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.baton.internal.TimedScripts.Reply;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Where {@link TimedScripts} runs its calls: the shared Lettuce connection when it is open, else a
 * connection opened on a thread of its own that the caller waits for only up to its timeout.
 */
final class ScriptConnections implements AutoCloseable {

	private final StringRedisTemplate redis;

	private final SharedLettuceCommands shared;

	/** Threads that open connections for callers that wait for them only up to their timeout. */
	private final ExecutorService connecting;

	ScriptConnections(BatonThreads threads, RedisConnectionFactory connectionFactory) {
		this.redis = new StringRedisTemplate(connectionFactory);
		// Without this the template wraps each connection in a reflective proxy, on every call.
		this.redis.setExposeConnection(true);
		this.shared = new SharedLettuceCommands(connectionFactory);
		// Platform even with virtual threads: renewals and extensions that must connect wait for these.
		this.connecting = threads.platform().cached("baton-redis-connect", Duration.ofSeconds(10));
	}

	/**
	 * Runs a call on Lettuce's asynchronous API: on the shared connection's commands where
	 * {@link SharedLettuceCommands} has them, else on a connection from the template; on other
	 * clients, the blocking call. A call that must first open a connection, or take one from the
	 * template (a validating factory sends a {@code PING}), does so on a thread of its own and
	 * waits for it at most {@code timeout}: those waits follow the connection's own timeouts, not
	 * Baton's, and fail on an interrupted thread. A call given up while it waited for its
	 * connection is never sent: once the caller moved on (scheduled the task elsewhere, then
	 * cancelled it), a late schedule would store it again.
	 * @throws RuntimeException if the call failed, or did not end within {@code timeout}
	 */
	void run(Duration timeout, Consumer<RedisClusterAsyncCommands<byte[], byte[]>> async,
			Consumer<RedisConnection> blocking) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.shared.current();
		if (commands != null) {
			async.accept(commands);
			return;
		}
		PendingCall pending = new PendingCall();
		CompletableFuture<Void> call = CompletableFuture.runAsync(() -> connectAndRun(pending, async, blocking),
				this.connecting);
		if (timeout.isZero()) {
			// Nobody waits: it goes out once connected.
			return;
		}
		// Awaited through a copy: giving up on it must not cancel the call before it started.
		Reply connected = AsyncScripts.awaitRestoringInterrupt(call.copy(), timeout);
		Throwable failure = connected.failure();
		if (failure instanceof TimeoutException && pending.abandon()) {
			throw new IllegalStateException(
					"not sent, as no connection to Redis opened within " + timeout.toMillis() + " ms", failure);
		}
		if (failure instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (failure != null) {
			throw new IllegalStateException(failure.getMessage(), failure);
		}
	}

	private void connectAndRun(PendingCall pending, Consumer<RedisClusterAsyncCommands<byte[], byte[]>> async,
			Consumer<RedisConnection> blocking) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.shared.connect();
		if (commands != null) {
			if (pending.start()) {
				async.accept(commands);
			}
			return;
		}
		this.redis.execute((RedisCallback<@Nullable Void>) (connection) -> {
			if (!pending.start()) {
				return null;
			}
			if (connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> lettuce) {
				async.accept(SharedLettuceCommands.bytes(lettuce));
			}
			else {
				blocking.accept(connection);
			}
			return null;
		});
	}

	/**
	 * Stops the threads that open connections: a connect under way ends without being waited for,
	 * and calls made afterwards that need a connection fail.
	 */
	@Override
	public void close() {
		this.connecting.shutdownNow();
	}

	/**
	 * A call waiting for its connection: either it starts, or its caller abandons it, never both.
	 */
	private static final class PendingCall {

		private static final int WAITING = 0;

		private static final int STARTED = 1;

		private static final int ABANDONED = 2;

		private final AtomicInteger state = new AtomicInteger(WAITING);

		/** @return whether the call may go out: its caller still waits for it */
		boolean start() {
			return this.state.compareAndSet(WAITING, STARTED);
		}

		/** @return whether the call will never go out: it had not started */
		boolean abandon() {
			return this.state.compareAndSet(WAITING, ABANDONED);
		}

	}

}
