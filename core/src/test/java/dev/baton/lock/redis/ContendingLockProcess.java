package dev.baton.lock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.support.ChildJvm;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Threads that take one lock in turn for a while, and check inside it, through Redis, that no
 * other holder (of any JVM) is inside and that fencing tokens only grow. Also a child JVM:
 * arguments Redis URL, lock name, threads, duration in ms; prints {@code pairs=<n>} at the end.
 */
public final class ContendingLockProcess {

	static final String INSIDE = "contention:inside";

	static final String OVERLAPS = "contention:overlaps";

	static final String LAST_TOKEN = "contention:last-token";

	static final String TOKENS_NOT_INCREASING = "contention:tokens-not-increasing";

	private ContendingLockProcess() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory connectionFactory = ChildJvm.connectionFactory(args[0]);
		try (RedisLockManager locks = RedisLockManager.builder(connectionFactory).build()) {
			int pairs = contend(locks, new StringRedisTemplate(connectionFactory), args[1], Integer.parseInt(args[2]),
					Duration.ofMillis(Long.parseLong(args[3])));
			System.out.println("pairs=" + pairs);
			System.out.flush();
		}
		finally {
			connectionFactory.destroy();
		}
	}

	/** Takes the lock in turn on {@code threads} threads for {@code duration}; returns how often. */
	static int contend(LockManager locks, StringRedisTemplate redis, String name, int threads, Duration duration) {
		long end = System.nanoTime() + duration.toNanos();
		AtomicInteger pairs = new AtomicInteger();
		List<CompletableFuture<Void>> workers = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			workers.add(CompletableFuture.runAsync(() -> {
				while (System.nanoTime() < end) {
					LockLease lease = locks.tryAcquire(name, Duration.ofSeconds(10)).orElseThrow();
					try {
						if (redis.opsForValue().increment(INSIDE) > 1) {
							redis.opsForValue().increment(OVERLAPS);
						}
						String last = redis.opsForValue().getAndSet(LAST_TOKEN, Long.toString(lease.fencingToken()));
						if (last != null && Long.parseLong(last) >= lease.fencingToken()) {
							redis.opsForValue().increment(TOKENS_NOT_INCREASING);
						}
						redis.opsForValue().decrement(INSIDE);
					}
					finally {
						lease.release();
					}
					pairs.incrementAndGet();
				}
			}));
		}
		CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).join();
		return pairs.get();
	}

}
