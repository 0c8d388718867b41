package dev.baton.benchmarks.lock;

import java.time.Duration;
import java.util.List;

import dev.baton.benchmarks.support.Connections;
import dev.baton.benchmarks.support.Metrics;
import dev.baton.benchmarks.support.Samples;
import dev.baton.benchmarks.support.Table;
import dev.baton.lock.LeaseToken;
import dev.baton.lock.LockLease;
import dev.baton.lock.redis.RedisLockManager;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A lock crossing processes, as a web request and a job on another instance do it: one manager
 * takes a lock and hands it over, another restores it from the token (parsed from its string
 * form) and extends it. Times the hand-over, the restore and the first extension together, one
 * lock at a time, each manager on a connection of its own to a local Redis.
 */
public final class HandOverBenchmarks {

	private static final int WARM_UP = 2_000;

	private static final int MEASURED = 20_000;

	private HandOverBenchmarks() {
	}

	/**
	 * Runs the benchmark.
	 * @param redisHost the server's host
	 * @param redisPort the server's port
	 * @return the table for {@code docs/benchmarks.md}
	 */
	public static Table run(String redisHost, int redisPort) {
		LettuceConnectionFactory webConnection = Connections.standalone(redisHost, redisPort);
		LettuceConnectionFactory jobConnection = Connections.standalone(redisHost, redisPort);
		try (RedisLockManager web = RedisLockManager.builder(webConnection).instanceName("web").build();
				RedisLockManager job = RedisLockManager.builder(jobConnection).instanceName("job").build()) {
			measure(web, job, WARM_UP);
			Samples micros = measure(web, job, MEASURED);
			Table table = new Table("Hand-over, restore and first extension of a lock, " + MEASURED
					+ " locks one after another (microseconds)", List.of("p50", "p99", "p99.9", "max"));
			table.add("baton", new Metrics().put("p50", micros.percentile(50))
				.put("p99", micros.percentile(99))
				.put("p99.9", micros.percentile(99.9))
				.put("max", micros.max()), "handOver() + restore(parse(asString())) + extend(5m)");
			return table;
		}
		finally {
			webConnection.destroy();
			jobConnection.destroy();
		}
	}

	private static Samples measure(RedisLockManager web, RedisLockManager job, int locks) {
		Samples micros = new Samples();
		for (int i = 0; i < locks; i++) {
			LockLease taken = web.tryAcquire("handover:" + i, Duration.ZERO).orElseThrow();
			long start = System.nanoTime();
			String token = taken.handOver().asString();
			LockLease restored = job.restore(LeaseToken.parse(token));
			restored.extend(Duration.ofMinutes(5));
			micros.add((System.nanoTime() - start) / 1_000);
			restored.release();
		}
		return micros;
	}

}
