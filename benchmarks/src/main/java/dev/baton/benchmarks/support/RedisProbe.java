package dev.baton.benchmarks.support;

import java.util.HashMap;
import java.util.Map;

import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

/**
 * The harness's own connection to the Redis server under test: empties it between runs and
 * reads its command counters and CPU time, so that every figure can be put per operation.
 */
public final class RedisProbe implements AutoCloseable {

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	public RedisProbe(String url) {
		this.client = RedisClient.create(url);
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
	}

	public void flushAll() {
		this.commands.flushall();
	}

	/** The members of every sorted set whose key matches the pattern, on this server alone. */
	public long zcardOfKeys(String pattern) {
		long members = 0;
		for (String key : this.commands.keys(pattern)) {
			members += this.commands.zcard(key);
		}
		return members;
	}

	/** The keys that match the pattern, sorted, on this server alone. */
	public List<String> keys(String pattern) {
		return this.commands.keys(pattern).stream().sorted().toList();
	}

	/** A key's type and {@code OBJECT ENCODING}, such as {@code hash, hashtable}. */
	public String typeAndEncoding(String key) {
		return this.commands.type(key) + ", " + this.commands.objectEncoding(key);
	}

	/** {@code MEMORY USAGE key SAMPLES 0}: the bytes of a key and its value, every element counted. */
	public long memoryUsage(String key) {
		Long bytes = this.commands.dispatch(CommandType.MEMORY, new IntegerOutput<>(StringCodec.UTF8),
				new CommandArgs<>(StringCodec.UTF8).add("USAGE").addKey(key).add("SAMPLES").add(0));
		return (bytes != null) ? bytes : 0;
	}

	/** The length of a hash field's value, {@code HSTRLEN}. */
	public long hashValueLength(String key, String field) {
		return this.commands.hstrlen(key, field);
	}

	/** {@code used_memory} of {@code INFO memory}: the bytes the server's allocator has handed out. */
	public long usedMemory() {
		return Long.parseLong(field(this.commands.info("memory"), "used_memory"));
	}

	public String version() {
		return field(this.commands.info("server"), "redis_version");
	}

	public Snapshot snapshot() {
		Map<String, Long> calls = new HashMap<>();
		for (String line : this.commands.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_")) {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				String stats = line.substring(line.indexOf(':') + 1);
				calls.put(name, Long.parseLong(field(stats.replace(',', '\n'), "calls")));
			}
		}
		String cpu = this.commands.info("cpu");
		double cpuSeconds = Double.parseDouble(field(cpu, "used_cpu_user"))
				+ Double.parseDouble(field(cpu, "used_cpu_sys"));
		return new Snapshot(calls, cpuSeconds);
	}

	private static String field(String info, String name) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(name + "=") || line.startsWith(name + ":")) {
				return line.substring(name.length() + 1).trim();
			}
		}
		throw new IllegalStateException("No " + name + " in INFO output");
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

	/**
	 * Command counters and CPU time of the server at one moment.
	 * @param calls calls per command name, from {@code INFO commandstats}
	 * @param cpuSeconds user plus system CPU time of the server, from {@code INFO cpu}
	 */
	public record Snapshot(Map<String, Long> calls, double cpuSeconds) {

		/**
		 * Returns the commands run since the earlier snapshot, without the harness's own
		 * {@code INFO} calls.
		 * @param earlier the snapshot taken first
		 * @return calls per command name, only those that changed
		 */
		public Map<String, Long> callsSince(Snapshot earlier) {
			Map<String, Long> delta = new HashMap<>();
			this.calls.forEach((name, count) -> {
				long diff = count - earlier.calls.getOrDefault(name, 0L);
				if (diff > 0 && !name.equals("info")) {
					delta.put(name, diff);
				}
			});
			return delta;
		}

		public long commandsSince(Snapshot earlier) {
			return callsSince(earlier).values().stream().mapToLong(Long::longValue).sum();
		}

		public double cpuSecondsSince(Snapshot earlier) {
			return this.cpuSeconds - earlier.cpuSeconds;
		}

		/** Formats the commands since the earlier snapshot per operation, e.g. {@code set 1.00, evalsha 1.00}. */
		public String callsPer(Snapshot earlier, long operations) {
			StringBuilder text = new StringBuilder();
			callsSince(earlier).entrySet()
				.stream()
				.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
				.forEach((entry) -> text.append(text.isEmpty() ? "" : ", ")
					.append(entry.getKey())
					.append(' ')
					.append(Table.format((double) entry.getValue() / Math.max(1, operations))));
			return text.toString();
		}

	}

}
