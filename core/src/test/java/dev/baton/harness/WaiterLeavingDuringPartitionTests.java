package dev.baton.harness;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.support.ProxiedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness's first finding, reduced to one waiter: a waiter whose wait runs out while its
 * link to Redis is black-holed unsubscribes from the release channel on its own thread, with
 * Lettuce's timeout instead of Baton's, so {@code tryAcquire(name, 1 s)} returns only when the
 * partition ends (or after Lettuce's 60 s). Found by {@link FaultFindingHarnessTests} with seed 27.
 */
class WaiterLeavingDuringPartitionTests {

	private final ProxiedRedis servers = ProxiedRedis.start();

	@AfterEach
	void stop() {
		this.servers.close();
	}

	/** Harness finding, seed 27: before ReleaseSubscriptions this had not returned 30 s into the partition. */
	@Test
	void waitThatEndsDuringAPartitionEndsWithinWaitPlusCommandTimeout() throws Exception {
		try (RedisLockManager holder = RedisLockManager.builder(this.servers.direct()).build();
				RedisLockManager waiter = RedisLockManager.builder(this.servers.throughProxy())
					.commandTimeout(Duration.ofMillis(300))
					.build()) {
			LockLease held = holder.tryAcquire("ledger", Duration.ZERO).orElseThrow();
			CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
				long start = System.nanoTime();
				try {
					Optional<LockLease> lease = waiter.tryAcquire("ledger", Duration.ofSeconds(1));
					lease.ifPresent(LockLease::release);
				}
				catch (LockUnavailableException ex) {
					// failing is fine; failing late is not
				}
				return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			});
			// Subscribed and waiting by now; the partition outlasts the wait.
			Thread.sleep(500);
			this.servers.proxy().blackHole();
			try {
				// Long.MAX_VALUE: still waiting 30 s into the partition.
				long took = waited.completeOnTimeout(Long.MAX_VALUE, 30, TimeUnit.SECONDS).get();
				assertThat(took).as("1 s wait + 300 ms command timeout + 1 s slack").isLessThan(2300);
			}
			finally {
				this.servers.proxy().heal();
				held.release();
			}
		}
	}

}
