package dev.baton.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.lock.LockLease;
import dev.baton.lock.RedisLockManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What locks promise on every Redis deployment; each backend's subclass runs it. Names are
 * spread so that on a cluster they land on every primary.
 */
abstract class LockContractTests extends ContractSuite {

	private final List<RedisLockManager> instances = new ArrayList<>();

	private RedisLockManager instance(Duration leaseTime) {
		RedisLockManager manager = RedisLockManager.builder(backend().connect()).leaseTime(leaseTime).build();
		this.instances.add(manager);
		return manager;
	}

	@AfterEach
	void closeInstances() {
		this.instances.forEach(RedisLockManager::close);
		this.instances.clear();
	}

	@Test
	void twoInstancesNeverHoldTheSameNameAtOnce() throws Exception {
		List<RedisLockManager> managers = List.of(instance(Duration.ofSeconds(30)), instance(Duration.ofSeconds(30)));
		Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger acquired = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				RedisLockManager manager = managers.get(t % 2);
				int seed = t;
				work.add(threads.submit(() -> {
					for (int i = 0; i < 30; i++) {
						String name = "stock:" + ((seed + i) % 12);
						try (LockLease lease = manager.tryAcquire(name, Duration.ofSeconds(5)).orElseThrow()) {
							if (holders.computeIfAbsent(name, (n) -> new AtomicInteger()).incrementAndGet() > 1) {
								overlaps.incrementAndGet();
							}
							acquired.incrementAndGet();
							holders.get(name).decrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> future : work) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(overlaps).hasValue(0);
		assertThat(acquired).hasValue(8 * 30);
	}

	@Test
	void fencingTokensGrowWithEveryAcquisition() {
		RedisLockManager first = instance(Duration.ofSeconds(30));
		RedisLockManager second = instance(Duration.ofSeconds(30));
		long previous = 0;
		for (int i = 0; i < 10; i++) {
			RedisLockManager manager = (i % 2 == 0) ? first : second;
			try (LockLease lease = manager.tryAcquire("ledger", Duration.ofSeconds(5)).orElseThrow()) {
				assertThat(lease.fencingToken()).isGreaterThan(previous);
				previous = lease.fencingToken();
			}
		}
	}

	@Test
	void watchdogKeepsALockBeyondItsLeaseAndReleaseLetsTheOtherInstanceIn() {
		RedisLockManager holder = instance(Duration.ofMillis(600));
		RedisLockManager other = instance(Duration.ofSeconds(30));
		LockLease lease = holder.tryAcquire("report", Duration.ZERO).orElseThrow();
		await().pollDelay(Duration.ofMillis(1500)).until(() -> true);

		assertThat(lease.isValid()).isTrue();
		assertThat(other.tryAcquire("report", Duration.ZERO)).isEmpty();
		lease.release();
		assertThat(other.tryAcquire("report", Duration.ofSeconds(2))).isPresent();
	}

}
