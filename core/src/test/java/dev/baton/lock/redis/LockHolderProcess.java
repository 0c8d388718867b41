package dev.baton.lock.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;

import dev.baton.lock.LockLease;
import dev.baton.support.ChildJvm;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A child JVM that takes a lock and holds it until told to release it on standard input.
 * Arguments: Redis URL, lock name, watchdog lease in ms, wait in ms. Prints {@code token=<n>}
 * once it holds the lock and {@code released} after releasing it.
 */
public final class LockHolderProcess {

	private LockHolderProcess() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory connectionFactory = ChildJvm.connectionFactory(args[0]);
		try (RedisLockManager locks = RedisLockManager.builder(connectionFactory)
			.leaseTime(Duration.ofMillis(Long.parseLong(args[2])))
			.build()) {
			LockLease lease = locks.tryAcquire(args[1], Duration.ofMillis(Long.parseLong(args[3])))
				.orElseThrow(() -> new IllegalStateException("not acquired"));
			System.out.println("token=" + lease.fencingToken());
			System.out.flush();
			BufferedReader input = new BufferedReader(new InputStreamReader(System.in));
			input.readLine();
			lease.release();
			System.out.println("released");
			System.out.flush();
		}
		finally {
			connectionFactory.destroy();
		}
	}

}
