package dev.baton.benchmarks.lock;

import java.util.List;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/** Every lock implementation the harness knows, in the order of the result tables. */
public final class LockImplementations {

	private LockImplementations() {
	}

	public static List<LockImplementation> all() {
		return List.of(new LockImplementation("baton", true, BatonLockClient::new),
				new LockImplementation("baton-replica-ack", true, ReplicaAcknowledgedBatonLockClient::new),
				new LockImplementation("raw-lettuce", false, RawLettuceLockClient::new),
				new LockImplementation("redisson", true, RedissonLockClient::new),
				new LockImplementation("spring-integration-spin", true,
						(url) -> new SpringIntegrationLockClient(url, RedisLockType.SPIN_LOCK)),
				new LockImplementation("spring-integration-pubsub", true,
						(url) -> new SpringIntegrationLockClient(url, RedisLockType.PUB_SUB_LOCK)));
	}

}
