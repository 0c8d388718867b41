package dev.baton.benchmarks;

import java.time.Duration;
import java.util.List;

import dev.baton.benchmarks.queue.ClusterBenchmarks;
import dev.baton.benchmarks.queue.MemoryBenchmarks;
import dev.baton.benchmarks.support.RedisProbe;
import dev.baton.benchmarks.support.Table;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every scenario for every implementation for a fraction of a second against a real Redis,
 * so that a broken adapter or scenario shows in {@code ./mvnw verify}. It measures nothing: the
 * figures of so short runs mean nothing.
 */
class BenchmarksSmokeTests {

	/**
	 * One measured run of each scenario, no warm-up runs (nor the drain's run that measures the
	 * storing rate), short lateness delays, and the harness's fixed waits (thread start delays,
	 * pauses before Redis's counters are read, MONITOR's trailing output) at a tenth of a real run's.
	 */
	private static final BenchmarkSettings TINY = BenchmarkSettings.parse("--runs=1", "--warmup=0ms",
			"--duration=100ms", "--tasks=300", "--batch-size=100", "--drain-timeout=30s", "--lateness-rate=50",
			"--lateness-duration=200ms", "--lateness-max-delay=200ms", "--idle-duration=100ms",
			"--wait-scale=0.1");

	private static RedisServer server;

	private static RedisProbe probe;

	@BeforeAll
	static void startRedis() {
		server = RedisServers.startLocal();
		probe = new RedisProbe(server.url());
	}

	@AfterAll
	static void stopRedis() {
		probe.close();
		server.close();
	}

	@Test
	void lockScenariosRunEveryImplementationWithoutViolations() {
		List<Table> tables = Benchmarks.run("locks", TINY, server.url(), probe);
		assertThat(tables).hasSize(3).allSatisfy(BenchmarksSmokeTests::assertNoFailures);
		assertThat(tables.get(0).column("pairs/s")).doesNotContain("0", "n/a");
		assertThat(tables.get(1).column("violations")).isNotEmpty().containsOnly("0");
		assertThat(tables.get(2).column("violations")).isNotEmpty().containsOnly("0");
	}

	@Test
	void queueScenariosHandleEveryTaskOnce() {
		List<Table> tables = Benchmarks.run("queue", TINY, server.url(), probe);
		assertThat(tables).hasSize(5).allSatisfy(BenchmarksSmokeTests::assertNoFailures);
		for (Table drain : List.of(tables.get(1), tables.get(2))) {
			assertThat(drain.column("missing")).as(drain.title()).isNotEmpty().containsOnly("0");
			assertThat(drain.column("duplicates")).as(drain.title()).containsOnly("0");
		}
		Table lateness = tables.get(3);
		assertThat(lateness.column("missing")).isNotEmpty().containsOnly("0");
	}

	@Test
	void clusterScenarioHandlesEveryTaskOnceWhateverThePartitions() {
		Table table = ClusterBenchmarks.run(TINY);
		assertThat(table.column("missing")).hasSize(3).containsOnly("0");
		assertThat(table.column("duplicates")).containsOnly("0");
	}

	@Test
	void memoryScenarioStoresEveryTaskOfEveryImplementation() {
		List<Table> tables = MemoryBenchmarks.run(server.url(), probe,
				List.of(new MemoryBenchmarks.Scenario(300, 64)), Duration.ofMillis(100));
		// Per task, then the keys of the scenario
		assertThat(tables).hasSize(2);
		assertThat(tables.get(0).column("tasks")).containsOnly("300");
		assertThat(tables.get(0).column("B/task")).hasSize(3).doesNotContain("0", "n/a");
		assertThat(tables.get(1).column("notes")).contains("zset, skiplist", "list, quicklist");
	}

	private static void assertNoFailures(Table table) {
		assertThat(table.column("notes")).as(table.title()).noneMatch((note) -> note.startsWith("failed"));
	}

}
