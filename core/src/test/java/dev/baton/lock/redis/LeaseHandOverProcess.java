package dev.baton.lock.redis;

import java.time.Duration;

import dev.baton.lock.LockLease;
import dev.baton.support.ChildJvm;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A child JVM that takes a lock as a web request would, extends it to cover the time until a job
 * takes it over, hands it over and exits. Arguments: Redis URL, lock name, extension in ms.
 * Prints {@code fencing=<n>} and {@code token=<token as a string>}.
 */
public final class LeaseHandOverProcess {

	private LeaseHandOverProcess() {
	}

	public static void main(String[] args) {
		LettuceConnectionFactory connectionFactory = ChildJvm.connectionFactory(args[0]);
		try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).instanceName("web").build()) {
			LockLease lease = locks.tryAcquire(args[1], Duration.ZERO)
				.orElseThrow(() -> new IllegalStateException("not acquired"));
			lease.extend(Duration.ofMillis(Long.parseLong(args[2])));
			System.out.println("fencing=" + lease.fencingToken());
			System.out.println("token=" + lease.handOver().asString());
			System.out.flush();
		}
		finally {
			connectionFactory.destroy();
		}
	}

}
