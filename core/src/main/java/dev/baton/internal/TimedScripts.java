package dev.baton.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.baton.internal.FailoverHold.Turn;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.protocol.CommandType;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.SetCondition;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.core.types.Expiration;

/**
 * Runs scripts with a timeout of their own, shorter than the connection's command timeout
 * (Lettuce's default is 60 s): a lock call or a visibility extension on an unreachable Redis
 * fails in time for what depends on it. On Lettuce the scripts go out on the connection's asynchronous
 * API, several at once where asked, and each reply is awaited up to the deadline; other clients
 * run them blocking, bounded by their own timeouts.
 *
 * <p>Besides scripts, it sends the one plain command that Baton needs on its fastest path:
 * {@code SET ... NX PX}, which costs Redis a fraction of the cheapest script.
 *
 * <p>Awaiting a reply ignores interrupts (and restores the flag afterwards): an interrupt must not
 * make the outcome of an acquire or a release unknown. The wait is bounded by the timeout.
 */
public final class TimedScripts implements AutoCloseable {

	private final ScriptConnections connections;

	private final Duration timeout;

	private final BiFunction<String, Throwable, RuntimeException> failure;

	private volatile FailoverHold hold = FailoverHold.NONE;

	/**
	 * Create a runner.
	 * @param threads the threads that open connections for callers that wait only up to their timeout
	 * @param connectionFactory the connections to run on
	 * @param timeout how long a call waits for its reply unless it says otherwise
	 * @param failure makes the exception of a failed call from a message and the cause
	 */
	public TimedScripts(BatonThreads threads, RedisConnectionFactory connectionFactory, Duration timeout,
			BiFunction<String, Throwable, RuntimeException> failure) {
		this.failure = failure;
		this.connections = new ScriptConnections(threads, connectionFactory);
		this.timeout = timeout;
	}

	/**
	 * Stops the threads that open connections: a connect under way ends without being waited for,
	 * and calls made afterwards that need a connection fail.
	 */
	@Override
	public void close() {
		this.connections.close();
	}

	/**
	 * Holds calls back while a failover promotes a replica, within each call's timeout: a call
	 * that the hold outlasts fails without having been sent, and one sent without waiting goes out
	 * once the hold ends.
	 * @param hold the hold of the connection factory's {@link PrimarySwitchWatch}
	 */
	public void followPrimary(FailoverHold hold) {
		this.hold = hold;
	}

	/** How long a call waits for its reply unless it says otherwise. */
	public Duration timeout() {
		return this.timeout;
	}

	/**
	 * Runs one script and waits for its reply.
	 * @param what the call and its lock, completing "Redis did not ...", e.g. "acquire lock 'a'"
	 * @return the reply: a {@code Long}, or a list for multi-bulk replies
	 * @throws RuntimeException made by the failure function if Redis failed or did not answer in
	 * time
	 */
	public Object eval(String what, RedisScript<?> script, List<String> keys, String... args) {
		return value(what, evalAll(what, List.of(new Script(script, keys, args))).get(0));
	}

	/**
	 * Sets a key that does not exist yet, with an expiry, in one {@code SET ... NX PX}.
	 * @param what the call and its lock, completing "Redis did not ...", e.g. "acquire lock 'a'"
	 * @return whether the key was set
	 * @throws RuntimeException made by the failure function if Redis failed or did not answer in
	 * time
	 */
	public boolean setIfAbsent(String what, String key, String value, long expiryMillis) {
		byte[] rawKey = utf8(key);
		byte[] rawValue = utf8(value);
		Object reply = command(what, (commands) -> commands.set(rawKey, rawValue, SetArgs.Builder.nx().px(expiryMillis)),
				(connection) -> connection.stringCommands()
					.set(rawKey, rawValue, SetCondition.ifAbsent(), Expiration.milliseconds(expiryMillis)));
		// Lettuce answers OK or nothing, other clients true or false.
		return "OK".equals(reply) || Boolean.TRUE.equals(reply);
	}

	/**
	 * Reads a string key in one {@code GET}.
	 * @param what the call and its lock, completing "Redis did not ...", e.g. "look up lock 'a'"
	 * @return the value, or {@code null} if the key does not exist
	 * @throws RuntimeException made by the failure function if Redis failed or did not answer in
	 * time
	 */
	public @Nullable String get(String what, String key) {
		byte[] rawKey = utf8(key);
		Object reply = command(what, (commands) -> commands.get(rawKey),
				(connection) -> connection.stringCommands().get(rawKey));
		return (reply != null) ? new String((byte[]) reply, StandardCharsets.UTF_8) : null;
	}

	/** Runs one plain command and waits for its reply, which may be {@code null}. */
	private @Nullable Object command(String what, Function<RedisClusterAsyncCommands<byte[], byte[]>, Future<?>> async,
			Function<RedisConnection, @Nullable Object> blocking) {
		Reply[] reply = new Reply[1];
		try {
			Turn turn = this.hold.awaitTurn(this.timeout);
			Duration left = turn.left();
			this.connections.run(left,
					(commands) -> reply[0] = AsyncScripts.awaitRestoringInterrupt(async.apply(commands), left),
					(connection) -> reply[0] = runBlocking(() -> blocking.apply(connection)));
			this.hold.checkReply(turn);
		}
		catch (RuntimeException ex) {
			throw failed(what, ex);
		}
		Throwable failure = reply[0].failure();
		if (failure != null) {
			throw failed(what, failure);
		}
		return reply[0].value();
	}

	/**
	 * The value of a reply.
	 * @throws RuntimeException made by the failure function if the script failed or timed out
	 */
	public Object value(String what, Reply reply) {
		if (reply.failure() != null || reply.value() == null) {
			throw failed(what, (reply.failure() != null) ? reply.failure() : new IllegalStateException("no reply"));
		}
		return reply.value();
	}

	private RuntimeException failed(String what, Throwable cause) {
		return this.failure.apply("Redis did not " + what + ": " + cause.getMessage(), cause);
	}

	/**
	 * Sends several scripts at once and waits for every reply up to one deadline.
	 * @return each script's reply or failure, in order
	 * @throws RuntimeException made by the failure function if no connection could be had
	 */
	public List<Reply> evalAll(String what, List<Script> scripts) {
		return evalAll(what, scripts, this.timeout);
	}

	/**
	 * Sends several scripts at once and waits for every reply up to a deadline of its own.
	 * @return each script's reply or failure, in order
	 * @throws RuntimeException made by the failure function if no connection could be had
	 */
	public List<Reply> evalAll(String what, List<Script> scripts, Duration timeout) {
		return evalAll(what, scripts, timeout, LateReplies.IGNORED);
	}

	/**
	 * Sends several scripts at once and waits for every reply up to a deadline of its own; a reply
	 * that comes after the caller gave up on it goes to {@code late}, so that the caller can undo
	 * what the script did (a claim's tasks must not stay in flight for nothing).
	 * @return each script's reply or failure, in order
	 * @throws RuntimeException made by the failure function if no connection could be had
	 */
	public List<Reply> evalAll(String what, List<Script> scripts, Duration timeout, LateReplies late) {
		List<Reply> replies = new ArrayList<>(scripts.size());
		Turn turn;
		try {
			turn = this.hold.awaitTurn(timeout);
			Duration left = turn.left();
			this.connections.run(left, (commands) -> AsyncScripts.sendAndAwait(commands, scripts, left, late, replies),
					(connection) -> {
						for (Script script : scripts) {
							replies.add(runBlocking(connection, script));
						}
					});
		}
		catch (RuntimeException ex) {
			throw failed(what, ex);
		}
		try {
			this.hold.checkReply(turn);
		}
		catch (IllegalStateException ex) {
			// Given up on: what the scripts did, wherever they ran, is for the caller to undo.
			for (int i = 0; i < replies.size(); i++) {
				if (replies.get(i).value() != null) {
					late.arrived(i, replies.get(i).value());
				}
			}
			throw failed(what, ex);
		}
		return replies;
	}

	/**
	 * Sends a script and does not wait for its reply: for clean-up whose outcome changes nothing
	 * for the caller. On clients other than Lettuce it runs blocking, its failure ignored.
	 */
	public void sendQuietly(Script script) {
		CompletableFuture<Void> turn = this.hold.quietTurn();
		if (!turn.isDone()) {
			turn.thenRun(() -> sendQuietly(script));
			return;
		}
		try {
			// Not even for a connection to open.
			this.connections.run(Duration.ZERO, (commands) -> AsyncScripts.sendWithoutWaiting(commands, script),
					(connection) -> runBlocking(connection, script));
		}
		catch (RuntimeException ex) {
			// Best effort: the lease runs out anyway.
		}
	}

	private static Reply runBlocking(RedisConnection connection, Script script) {
		ReturnType type = (script.outputType() == ScriptOutputType.MULTI) ? ReturnType.MULTI : ReturnType.INTEGER;
		return runBlocking(() -> connection.scriptingCommands()
			.eval(script.text(), type, script.keyCount(), script.keysAndArgs()));
	}

	private static Reply runBlocking(Supplier<@Nullable Object> call) {
		try {
			return new Reply(call.get(), null, false);
		}
		catch (RuntimeException ex) {
			return new Reply(null, ex, false);
		}
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/** A script call: the script, its keys and arguments. */
	public static final class Script {

		private final RedisScript<?> script;

		private final byte[][] keys;

		private final byte[][] args;

		/**
		 * Describe a call.
		 * @param script the script
		 * @param keys its keys
		 * @param args its arguments
		 */
		public Script(RedisScript<?> script, List<String> keys, String... args) {
			this.script = script;
			this.keys = new byte[keys.size()][];
			for (int i = 0; i < this.keys.length; i++) {
				this.keys[i] = utf8(keys.get(i));
			}
			this.args = new byte[args.length][];
			for (int i = 0; i < args.length; i++) {
				this.args[i] = utf8(args[i]);
			}
		}

		ScriptOutputType outputType() {
			return List.class.isAssignableFrom(this.script.getResultType()) ? ScriptOutputType.MULTI
					: ScriptOutputType.INTEGER;
		}

		/** Sends it by digest, so that it can be given up for good ({@link ScriptCommand}). */
		ScriptCommand send(RedisClusterAsyncCommands<byte[], byte[]> async) {
			return ScriptCommand.send(async, CommandType.EVALSHA, utf8(this.script.getSha1()), outputType(), this.keys,
					this.args);
		}

		/** Sends its text, so that it can be given up for good ({@link ScriptCommand}). */
		ScriptCommand sendText(RedisClusterAsyncCommands<byte[], byte[]> async) {
			return ScriptCommand.send(async, CommandType.EVAL, text(), outputType(), this.keys, this.args);
		}

		byte[] text() {
			return utf8(this.script.getScriptAsString());
		}

		byte[] firstKey() {
			return this.keys[0];
		}

		int keyCount() {
			return this.keys.length;
		}

		byte[][] keysAndArgs() {
			byte[][] all = new byte[this.keys.length + this.args.length][];
			System.arraycopy(this.keys, 0, all, 0, this.keys.length);
			System.arraycopy(this.args, 0, all, this.keys.length, this.args.length);
			return all;
		}

	}

	/**
	 * The reply to one script, or why there is none.
	 * @param value the reply, or {@code null} if it failed
	 * @param failure why there is no reply, or {@code null}
	 * @param interrupted whether the thread was interrupted while it waited (the flag is restored
	 * once every reply is in)
	 */
	public record Reply(@Nullable Object value, @Nullable Throwable failure, boolean interrupted) {

	}

	/** Receives the replies that came after their caller stopped waiting for them. */
	@FunctionalInterface
	public interface LateReplies {

		/** Drops late replies: for calls whose late outcome needs nothing undone. */
		LateReplies IGNORED = (index, value) -> {
		};

		/**
		 * A reply came late. Called on a Redis client thread: must not block.
		 * @param index the script's place among those sent together
		 * @param value its reply
		 */
		void arrived(int index, @Nullable Object value);

	}

}
