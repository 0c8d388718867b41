package dev.baton.benchmarks.lock;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The floor any Redis lock pays: {@code SET key token NX PX} to acquire and one
 * {@code EVALSHA} compare-and-delete to release, two round trips on one shared Lettuce
 * connection, with no waiting, reentrancy or renewal. Only meaningful uncontended.
 */
final class RawLettuceLockClient implements LockClient {

	private static final String COMPARE_AND_DELETE = """
			if redis.call('get', KEYS[1]) == ARGV[1] then
				return redis.call('del', KEYS[1])
			end
			return 0""";

	private static final long LEASE_MILLIS = 30_000;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	private final String releaseSha;

	private final String tokenPrefix = UUID.randomUUID() + ":";

	private final AtomicLong tokens = new AtomicLong();

	RawLettuceLockClient(String redisUrl) {
		this.client = RedisClient.create(redisUrl);
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
		this.releaseSha = this.commands.scriptLoad(COMPARE_AND_DELETE);
	}

	@Override
	public Lock lockFor(String name) {
		return new RawLock(name, this.tokenPrefix + this.tokens.incrementAndGet());
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

	private final class RawLock implements Lock {

		private final String key;

		private final String token;

		RawLock(String key, String token) {
			this.key = key;
			this.token = token;
		}

		@Override
		public boolean tryLock() {
			return "OK".equals(RawLettuceLockClient.this.commands.set(this.key, this.token,
					SetArgs.Builder.nx().px(LEASE_MILLIS)));
		}

		@Override
		public void lock() {
			while (!tryLock()) {
				Thread.onSpinWait();
			}
		}

		@Override
		public void unlock() {
			Long deleted = RawLettuceLockClient.this.commands.evalsha(RawLettuceLockClient.this.releaseSha,
					ScriptOutputType.INTEGER, new String[] { this.key }, this.token);
			if (deleted == null || deleted != 1) {
				throw new IllegalMonitorStateException("Lock " + this.key + " was not held");
			}
		}

		@Override
		public void lockInterruptibly() {
			throw new UnsupportedOperationException();
		}

		@Override
		public boolean tryLock(long time, TimeUnit unit) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Condition newCondition() {
			throw new UnsupportedOperationException();
		}

	}

}
