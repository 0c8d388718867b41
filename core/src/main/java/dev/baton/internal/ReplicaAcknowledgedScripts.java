package dev.baton.internal;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Runs a script and then {@code WAIT} on the same connection, so that the caller learns how many
 * replicas have the script's writes. {@code WAIT} holds up every later command of its connection,
 * so these calls never use the application's shared connection: they take connections of their
 * own, opened when first needed and reused, at most {@value #MAX_CONNECTIONS} at once. A
 * connection whose call failed or timed out is closed rather than reused, as a reply may still be
 * on its way.
 */
public final class ReplicaAcknowledgedScripts implements AutoCloseable {

	private static final int MAX_CONNECTIONS = 8;

	private final LettuceConnectionFactory connectionFactory;

	private final int replicas;

	private final Duration replicaTimeout;

	private final Duration commandTimeout;

	private final BiFunction<String, Throwable, RuntimeException> failure;

	private final Semaphore permits = new Semaphore(MAX_CONNECTIONS);

	private final Queue<Connection> idle = new ConcurrentLinkedQueue<>();

	private volatile boolean closed;

	/**
	 * Create a runner.
	 * @param connectionFactory the connections' factory; it must be a
	 * {@link LettuceConnectionFactory}
	 * @param replicas how many replicas each call waits for
	 * @param replicaTimeout how long a call waits for them after its script has run
	 * @param commandTimeout how long a call waits for its script's reply
	 * @param failure makes the exception of a failed call from a message and the cause
	 * @throws IllegalArgumentException if the factory is not Lettuce's
	 */
	public ReplicaAcknowledgedScripts(RedisConnectionFactory connectionFactory, int replicas, Duration replicaTimeout,
			Duration commandTimeout, BiFunction<String, Throwable, RuntimeException> failure) {
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			throw new IllegalArgumentException("Waiting for replicas needs a LettuceConnectionFactory, not "
					+ connectionFactory.getClass().getName());
		}
		this.connectionFactory = lettuce;
		this.replicas = replicas;
		this.replicaTimeout = replicaTimeout;
		this.commandTimeout = commandTimeout;
		this.failure = failure;
	}

	/**
	 * Runs a script, then waits until the replicas have its writes or the replica timeout has
	 * passed.
	 * @param what the call and its lock, completing "Redis did not ...", e.g. "acquire lock 'a'"
	 * @return the script's reply and how many replicas acknowledged it
	 * @throws RuntimeException made by the failure function if Redis failed or did not answer in
	 * time
	 */
	public Acknowledged eval(String what, TimedScripts.Script script) {
		return eval(what, script, null);
	}

	/**
	 * Runs a script as {@link #eval(String, TimedScripts.Script)} does, and if no reply came, sends
	 * {@code undo} behind it on the same connection before that is closed: on another connection
	 * the undo could run first, and the script after it.
	 * @param undo what undoes the script's writes, or {@code null}
	 */
	public Acknowledged eval(String what, TimedScripts.Script script, TimedScripts.@Nullable Script undo) {
		long deadline = System.nanoTime() + this.commandTimeout.plus(this.replicaTimeout).toNanos();
		Connection connection = borrow(what);
		boolean reusable = false;
		RedisClusterAsyncCommands<byte[], byte[]> commands = null;
		try {
			commands = connection.commandsFor(script.firstKey());
			Acknowledged acknowledged;
			try {
				acknowledged = run(commands, script.send(commands).reply(), deadline);
			}
			catch (RedisNoScriptException ex) {
				// Redis forgot the script (restart, SCRIPT FLUSH): send its text once.
				acknowledged = run(commands, script.sendText(commands).reply(), deadline);
			}
			reusable = true;
			return acknowledged;
		}
		catch (Throwable ex) {
			if (undo != null && commands != null) {
				// Its text, not its digest: a NOSCRIPT reply would come too late to send it again.
				undo.sendText(commands);
			}
			throw this.failure.apply("Redis did not " + what + ": " + ex.getMessage(), ex);
		}
		finally {
			giveBack(connection, reusable);
		}
	}

	/** Sends WAIT behind the script and awaits both replies, so that the connection is left idle. */
	private Acknowledged run(RedisClusterAsyncCommands<byte[], byte[]> commands, Future<Object> sent,
			long deadline) throws Throwable {
		RedisFuture<Long> replicated = commands.waitForReplication(this.replicas, this.replicaTimeout.toMillis());
		TimedScripts.Reply reply = AsyncScripts.await(sent, deadline, this.commandTimeout);
		TimedScripts.Reply waited = AsyncScripts.await(replicated, deadline, this.replicaTimeout);
		restoreInterrupt(reply.interrupted() || waited.interrupted());
		if (reply.failure() != null) {
			throw reply.failure();
		}
		if (waited.failure() != null) {
			throw waited.failure();
		}
		return new Acknowledged(reply.value(), ((Number) waited.value()).longValue());
	}

	private static void restoreInterrupt(boolean interrupted) {
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	private Connection borrow(String what) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					if (!this.permits.tryAcquire(this.commandTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
						TimeoutException busy = new TimeoutException("all " + MAX_CONNECTIONS
								+ " connections that wait for replicas stayed busy for "
								+ this.commandTimeout.toMillis() + " ms");
						throw this.failure.apply("Redis did not " + what + ": " + busy.getMessage(), busy);
					}
					break;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		finally {
			restoreInterrupt(interrupted);
		}
		Connection connection = this.idle.poll();
		if (connection != null) {
			return connection;
		}
		try {
			return open(this.connectionFactory.getRequiredNativeClient());
		}
		catch (RuntimeException ex) {
			this.permits.release();
			throw this.failure.apply("Redis did not " + what + ": no connection: " + ex.getMessage(), ex);
		}
	}

	private void giveBack(Connection connection, boolean reusable) {
		if (reusable && !this.closed) {
			this.idle.add(connection);
		}
		else {
			connection.close();
		}
		this.permits.release();
	}

	private static Connection open(AbstractRedisClient client) {
		if (client instanceof RedisClusterClient cluster) {
			return new ClusterConnection(cluster.connect(ByteArrayCodec.INSTANCE));
		}
		return new StandaloneConnection(((RedisClient) client).connect(ByteArrayCodec.INSTANCE));
	}

	@Override
	public void close() {
		this.closed = true;
		closeIdle();
	}

	/** Closes the connections not in use, so that the next calls open new ones (after a failover). */
	public void closeIdle() {
		for (Connection connection = this.idle.poll(); connection != null; connection = this.idle.poll()) {
			connection.close();
		}
	}

	/**
	 * A script's reply and how many replicas acknowledged its writes.
	 * @param value the script's reply
	 * @param replicas how many replicas had the writes when {@code WAIT} returned
	 */
	public record Acknowledged(Object value, long replicas) {

	}

	/** A connection of these calls: the node that serves a key. */
	private interface Connection {

		RedisClusterAsyncCommands<byte[], byte[]> commandsFor(byte[] key);

		void close();

	}

	private record StandaloneConnection(StatefulRedisConnection<byte[], byte[]> connection) implements Connection {

		@Override
		public RedisClusterAsyncCommands<byte[], byte[]> commandsFor(byte[] key) {
			return this.connection.async();
		}

		@Override
		public void close() {
			this.connection.closeAsync();
		}

	}

	/**
	 * WAIT counts the replicas of the node it runs on, so it must go to the primary of the key's
	 * slot on the connection that ran the script: the cluster connection's own connection to
	 * that node.
	 */
	private record ClusterConnection(StatefulRedisClusterConnection<byte[], byte[]> connection) implements Connection {

		@Override
		public RedisClusterAsyncCommands<byte[], byte[]> commandsFor(byte[] key) {
			RedisClusterNode primary = this.connection.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
			if (primary == null) {
				throw new IllegalStateException("no primary known for slot " + SlotHash.getSlot(key));
			}
			return this.connection.getConnection(primary.getNodeId()).async();
		}

		@Override
		public void close() {
			this.connection.closeAsync();
		}

	}

}
