package dev.baton.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.SetCondition;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
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

	private final StringRedisTemplate redis;

	private final SharedLettuceCommands shared;

	private final Duration timeout;

	/** Threads that open connections for callers that wait for them only up to their timeout. */
	private final ExecutorService connecting;

	private final BiFunction<String, Throwable, RuntimeException> failure;

	private volatile FailoverHold hold = FailoverHold.NONE;

	/**
	 * Create a runner.
	 * @param connectionFactory the connections to run on
	 * @param timeout how long a call waits for its reply unless it says otherwise
	 * @param failure makes the exception of a failed call from a message and the cause
	 */
	public TimedScripts(RedisConnectionFactory connectionFactory, Duration timeout,
			BiFunction<String, Throwable, RuntimeException> failure) {
		this.failure = failure;
		this.redis = new StringRedisTemplate(connectionFactory);
		// Without this the template wraps each connection in a reflective proxy, on every call.
		this.redis.setExposeConnection(true);
		this.shared = new SharedLettuceCommands(connectionFactory);
		this.connecting = DaemonExecutors.cached("baton-redis-connect", Duration.ofSeconds(10));
		this.timeout = timeout;
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
			Duration left = awaitPrimary(this.timeout);
			onConnection(left, (commands) -> reply[0] = awaitRestoringInterrupt(async.apply(commands), left),
					(connection) -> reply[0] = runBlocking(() -> blocking.apply(connection)));
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
		try {
			Duration left = awaitPrimary(timeout);
			onConnection(left, (commands) -> sendAndAwait(commands, scripts, left, late, replies), (connection) -> {
				for (Script script : scripts) {
					replies.add(runBlocking(connection, script));
				}
			});
		}
		catch (RuntimeException ex) {
			throw failed(what, ex);
		}
		return replies;
	}

	/**
	 * Sends a script and does not wait for its reply: for clean-up whose outcome changes nothing
	 * for the caller. On clients other than Lettuce it runs blocking, its failure ignored.
	 */
	public void sendQuietly(Script script) {
		CompletableFuture<Void> ready = this.hold.ready();
		if (!ready.isDone()) {
			ready.thenRun(() -> sendQuietly(script));
			return;
		}
		try {
			// Not even for a connection to open.
			onConnection(Duration.ZERO, (commands) -> sendWithoutWaiting(commands, script),
					(connection) -> runBlocking(connection, script));
		}
		catch (RuntimeException ex) {
			// Best effort: the lease runs out anyway.
		}
	}

	/**
	 * Waits while a failover holds calls back, at most the call's timeout.
	 * @return what is left of the timeout
	 * @throws IllegalStateException if the hold outlasted the timeout: nothing was sent
	 */
	private Duration awaitPrimary(Duration timeout) {
		CompletableFuture<Void> ready = this.hold.ready();
		if (ready.isDone()) {
			return timeout;
		}
		long start = System.nanoTime();
		Reply reply = awaitRestoringInterrupt(ready.copy(), timeout);
		Duration left = timeout.minusNanos(System.nanoTime() - start);
		if (reply.failure() != null || left.isNegative() || left.isZero()) {
			throw new IllegalStateException("not sent, as Redis Sentinel was still switching the primary after "
					+ timeout.toMillis() + " ms");
		}
		return left;
	}

	/**
	 * Runs a call on Lettuce's asynchronous API: on the shared connection's commands where
	 * {@link SharedLettuceCommands} has them, else on a connection from the template; on other
	 * clients, the blocking call. A call that must first open a connection, or take one from the
	 * template (a validating factory sends a {@code PING}), does so on a thread of its own and
	 * waits for it at most {@code timeout}: those waits follow the connection's own timeouts, not
	 * Baton's, and fail on an interrupted thread.
	 * @throws RuntimeException if the call failed, or did not end within {@code timeout}
	 */
	private void onConnection(Duration timeout, Consumer<RedisClusterAsyncCommands<byte[], byte[]>> async,
			Consumer<RedisConnection> blocking) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.shared.current();
		if (commands != null) {
			async.accept(commands);
			return;
		}
		CompletableFuture<Void> call = CompletableFuture.runAsync(() -> connectAndRun(async, blocking), this.connecting);
		if (timeout.isZero()) {
			// Nobody waits: it goes out once connected.
			return;
		}
		// Awaited through a copy: giving up on it must not cancel the call before it started.
		Reply connected = awaitRestoringInterrupt(call.copy(), timeout);
		Throwable failure = connected.failure();
		if (failure instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (failure != null) {
			throw new IllegalStateException(failure.getMessage(), failure);
		}
	}

	private void connectAndRun(Consumer<RedisClusterAsyncCommands<byte[], byte[]>> async,
			Consumer<RedisConnection> blocking) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.shared.connect();
		if (commands != null) {
			async.accept(commands);
			return;
		}
		this.redis.execute((RedisCallback<@Nullable Void>) (connection) -> {
			if (connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> lettuce) {
				async.accept(SharedLettuceCommands.bytes(lettuce));
			}
			else {
				blocking.accept(connection);
			}
			return null;
		});
	}

	private static void sendWithoutWaiting(RedisClusterAsyncCommands<byte[], byte[]> commands, Script script) {
		script.send(commands).whenComplete((reply, failure) -> {
			if (failure instanceof RedisNoScriptException) {
				// Redis forgot the script (restart, SCRIPT FLUSH) or never had it.
				script.sendText(commands);
			}
		});
	}

	private static void sendAndAwait(RedisClusterAsyncCommands<byte[], byte[]> async, List<Script> scripts,
			Duration timeout, LateReplies late, List<Reply> replies) {
		long deadline = System.nanoTime() + timeout.toNanos();
		List<SentScript> sent = new ArrayList<>(scripts.size());
		for (Script script : scripts) {
			sent.add(new SentScript(async, script));
		}
		boolean interrupted = false;
		try {
			for (int i = 0; i < scripts.size(); i++) {
				// Awaited through a copy: giving up on it must leave the late reply to come.
				Reply reply = await(sent.get(i).answer.copy(), deadline, timeout);
				interrupted |= reply.interrupted();
				replies.add(reply);
				if (reply.failure() instanceof TimeoutException) {
					int index = i;
					sent.get(i).giveUp((late != LateReplies.IGNORED) ? (value) -> late.arrived(index, value) : null);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * A script sent by its digest. If Redis forgot it (restart, SCRIPT FLUSH), its text goes once,
	 * at once, not after the replies before it, one of which may be from a node that does not
	 * answer.
	 */
	private static final class SentScript {

		final CompletableFuture<Object> answer;

		/** The command in flight: by digest, then by text. */
		private volatile CompletableFuture<Object> command;

		private volatile boolean givenUp;

		SentScript(RedisClusterAsyncCommands<byte[], byte[]> async, Script script) {
			this.command = script.send(async).toCompletableFuture();
			this.answer = this.command.exceptionallyCompose((failure) -> {
				Throwable cause = (failure instanceof CompletionException wrapped && wrapped.getCause() != null)
						? wrapped.getCause() : failure;
				if (!(cause instanceof RedisNoScriptException) || this.givenUp) {
					return CompletableFuture.failedFuture(cause);
				}
				CompletableFuture<Object> text = script.sendText(async).toCompletableFuture();
				this.command = text;
				if (this.givenUp) {
					// Given up while the digest's answer was on its way.
					text.cancel(false);
				}
				return text;
			});
		}

		/**
		 * The caller stopped waiting. Without a late-reply listener the command is cancelled, so
		 * that Lettuce does not send it after a reconnect, long after the caller moved on (a
		 * schedule that stores a task the application since scheduled elsewhere and cancelled):
		 * it ran already or it never will. With one, it is left to run and the listener gets its
		 * reply, to undo it.
		 */
		void giveUp(@Nullable Consumer<Object> lateReply) {
			this.givenUp = true;
			if (lateReply != null) {
				this.answer.thenAccept(lateReply);
			}
			else {
				this.command.cancel(false);
			}
		}

	}

	/** Awaits one reply up to the timeout, and restores the interrupt flag if interrupted meanwhile. */
	private static Reply awaitRestoringInterrupt(Future<?> future, Duration timeout) {
		Reply reply = await(future, System.nanoTime() + timeout.toNanos(), timeout);
		if (reply.interrupted()) {
			Thread.currentThread().interrupt();
		}
		return reply;
	}

	static Reply await(Future<?> future, long deadline, Duration timeout) {
		boolean interrupted = false;
		while (true) {
			try {
				return new Reply(future.get(Math.max(deadline - System.nanoTime(), 0), TimeUnit.NANOSECONDS), null,
						interrupted);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
			catch (ExecutionException ex) {
				return new Reply(null, ex.getCause(), interrupted);
			}
			catch (TimeoutException ex) {
				future.cancel(true);
				return new Reply(null, new TimeoutException("no reply within " + timeout.toMillis() + " ms"), interrupted);
			}
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

		RedisFuture<Object> send(RedisClusterAsyncCommands<byte[], byte[]> async) {
			return async.evalsha(this.script.getSha1(), outputType(), this.keys, this.args);
		}

		RedisFuture<Object> sendText(RedisClusterAsyncCommands<byte[], byte[]> async) {
			return async.eval(text(), outputType(), this.keys, this.args);
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
