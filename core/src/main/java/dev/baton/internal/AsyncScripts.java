package dev.baton.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import dev.baton.internal.TimedScripts.LateReplies;
import dev.baton.internal.TimedScripts.Reply;
import dev.baton.internal.TimedScripts.Script;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * Scripts sent on Lettuce's asynchronous API and their replies awaited up to a deadline, for
 * {@link TimedScripts}: a script Redis forgot goes again as text at once, and a reply given up on
 * is cancelled or handed to whoever undoes it.
 */
final class AsyncScripts {

	private AsyncScripts() {
	}

	static void sendWithoutWaiting(RedisClusterAsyncCommands<byte[], byte[]> commands, Script script) {
		script.send(commands).reply().whenComplete((reply, failure) -> {
			if (failure instanceof RedisNoScriptException) {
				// Redis forgot the script (restart, SCRIPT FLUSH) or never had it.
				script.sendText(commands);
			}
		});
	}

	static void sendAndAwait(RedisClusterAsyncCommands<byte[], byte[]> async, List<Script> scripts,
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
		private volatile ScriptCommand command;

		private volatile boolean givenUp;

		SentScript(RedisClusterAsyncCommands<byte[], byte[]> async, Script script) {
			this.command = script.send(async);
			this.answer = this.command.reply().exceptionallyCompose((failure) -> {
				Throwable cause = (failure instanceof CompletionException wrapped && wrapped.getCause() != null)
						? wrapped.getCause() : failure;
				if (!(cause instanceof RedisNoScriptException) || this.givenUp) {
					return CompletableFuture.failedFuture(cause);
				}
				ScriptCommand text = script.sendText(async);
				this.command = text;
				if (this.givenUp) {
					// Given up while the digest's answer was on its way.
					text.abandon();
				}
				return text.reply();
			});
		}

		/**
		 * The caller stopped waiting. Without a late-reply listener the command is abandoned, so
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
				this.command.abandon();
			}
		}

	}

	/** Awaits one reply up to the timeout, and restores the interrupt flag if interrupted meanwhile. */
	static Reply awaitRestoringInterrupt(Future<?> future, Duration timeout) {
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

}
