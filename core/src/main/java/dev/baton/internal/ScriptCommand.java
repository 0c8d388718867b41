package dev.baton.internal;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;

/**
 * A script sent through Lettuce that its caller can give up for good. Cancelling the future that
 * Lettuce's API returns is not enough on a Redis Cluster: the connection queues a wrapper of its
 * own, whose completion ignores that cancel, and sends the command again after a reconnect (a
 * schedule given up, then sent again after the caller cancelled the task it scheduled elsewhere).
 * This sends the command itself and keeps what the connection queued, to complete that.
 */
final class ScriptCommand {

	private final CompletableFuture<Object> reply;

	/** Completes what the connection queued: the command, or a wrapper of it that Lettuce resends. */
	private final Runnable abandon;

	private ScriptCommand(CompletableFuture<Object> reply, Runnable abandon) {
		this.reply = reply;
		this.abandon = abandon;
	}

	/**
	 * Sends a script by its digest ({@code EVALSHA}) or its text ({@code EVAL}).
	 * @param script the digest, or the text
	 */
	static ScriptCommand send(RedisClusterAsyncCommands<byte[], byte[]> async, CommandType type, byte[] script,
			ScriptOutputType outputType, byte[][] keys, byte[][] args) {
		CommandArgs<byte[], byte[]> commandArgs = new CommandArgs<>(ByteArrayCodec.INSTANCE).add(script)
			.add(keys.length)
			.addKeys(keys)
			.addValues(args);
		StatefulConnection<byte[], byte[]> connection = LettuceConnections.of(async);
		if (connection == null) {
			// Not one of Lettuce's command interfaces: its future is all there is to give up.
			CompletableFuture<Object> reply = async.dispatch(type, output(outputType), commandArgs).toCompletableFuture();
			return new ScriptCommand(reply, () -> reply.cancel(false));
		}
		AsyncCommand<byte[], byte[], Object> command = new AsyncCommand<>(
				new Command<>(type, output(outputType), commandArgs));
		RedisCommand<byte[], byte[], Object> queued = connection.dispatch(command);
		return new ScriptCommand(command,
				() -> queued.completeExceptionally(new CancellationException("given up by its caller")));
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static CommandOutput<byte[], byte[], Object> output(ScriptOutputType type) {
		return (type == ScriptOutputType.MULTI) ? (CommandOutput) new NestedMultiOutput<>(ByteArrayCodec.INSTANCE)
				: (CommandOutput) new IntegerOutput<>(ByteArrayCodec.INSTANCE);
	}

	/** The reply, or the failure. */
	CompletableFuture<Object> reply() {
		return this.reply;
	}

	/**
	 * Gives the command up: if the connection has not sent it yet, or must send it again after a
	 * reconnect, it never does. One already sent runs.
	 */
	void abandon() {
		this.abandon.run();
	}

}
