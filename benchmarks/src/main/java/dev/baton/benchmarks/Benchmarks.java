package dev.baton.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import dev.baton.benchmarks.lock.HandOverBenchmarks;
import dev.baton.benchmarks.lock.LockBenchmarks;
import dev.baton.benchmarks.lock.LockChild;
import dev.baton.benchmarks.lock.LockImplementations;
import dev.baton.benchmarks.queue.ClusterBenchmarks;
import dev.baton.benchmarks.queue.DueWindowBenchmarks;
import dev.baton.benchmarks.queue.FailoverBenchmarks;
import dev.baton.benchmarks.queue.MemoryBenchmarks;
import dev.baton.benchmarks.queue.QueueBenchmarks;
import dev.baton.benchmarks.queue.QueueImplementations;
import dev.baton.benchmarks.support.RedisProbe;
import dev.baton.benchmarks.support.Table;
import dev.baton.harness.HarnessLongRun;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;

/**
 * Runs the benchmarks of issues 3 and 4 and prints Markdown result tables.
 *
 * <pre>
 * java -jar benchmarks/target/baton-benchmarks.jar locks|queue|all [--name=value ...]
 * </pre>
 *
 * Without {@code --redis=redis://host:port} it starts its own {@code redis-server} process
 * (see {@link RedisServers#startLocal(String...)}), so nothing needs to be installed. Options
 * are listed in {@link BenchmarkSettings}.
 */
public final class Benchmarks {

	private Benchmarks() {
	}

	public static void main(String[] arguments) throws IOException, InterruptedException {
		if (arguments.length > 0 && arguments[0].equals(LockChild.MODE)) {
			LockChild.main(Arrays.copyOfRange(arguments, 1, arguments.length));
			return;
		}
		if (arguments.length > 0 && arguments[0].equals("failover")) {
			// Runs its own Sentinel set: no server or options of the other scenarios; an argument
			// keeps the faults whose name contains it ("sentinel", "cluster", "review")
			String faults = (arguments.length > 1) ? arguments[1] : "";
			System.out.println(FailoverBenchmarks.run(faults).toMarkdown());
			System.exit(0);
		}
		if (arguments.length > 0 && arguments[0].equals("harness")) {
			// The fault-finding harness's long run: its own Redis per run, its own arguments
			HarnessLongRun.main(Arrays.copyOfRange(arguments, 1, arguments.length));
			return;
		}
		if (arguments.length > 0 && arguments[0].equals("handover")) {
			try (RedisServer server = RedisServers.startLocal()) {
				System.out.println(HandOverBenchmarks.run(server.host(), server.port()).toMarkdown());
			}
			System.exit(0);
		}
		if (arguments.length > 0 && arguments[0].equals("window")) {
			try (RedisServer server = RedisServers.startLocal()) {
				System.out.println(DueWindowBenchmarks.run(server.host(), server.port()).toMarkdown());
			}
			System.exit(0);
		}
		if (arguments.length > 0 && arguments[0].equals("memory")) {
			// Its own server unless --redis names one (flushed): used_memory is the server's whole
			String configuredUrl = BenchmarkSettings.parse(Arrays.copyOfRange(arguments, 1, arguments.length))
				.redisUrl();
			try (RedisServer server = (configuredUrl != null) ? null : RedisServers.startLocal();
					RedisProbe probe = new RedisProbe((configuredUrl != null) ? configuredUrl : server.url())) {
				String url = (configuredUrl != null) ? configuredUrl : server.url();
				String machine = machine(probe);
				System.out.println(machine);
				List<Table> tables = MemoryBenchmarks.run(url, probe, MemoryBenchmarks.SCENARIOS);
				System.out.println();
				System.out.println(machine);
				System.out.println();
				tables.forEach((table) -> System.out.println(table.toMarkdown()));
			}
			System.exit(0);
		}
		if (arguments.length > 0 && arguments[0].equals("cluster")) {
			// Runs its own cluster: only the queue options apply
			BenchmarkSettings settings = BenchmarkSettings.parse(Arrays.copyOfRange(arguments, 1, arguments.length));
			System.out.println(ClusterBenchmarks.run(settings).toMarkdown());
			System.exit(0);
		}
		if (arguments.length == 0 || !List.of("locks", "queue", "all").contains(arguments[0])) {
			System.err.println("Usage: java -jar baton-benchmarks.jar locks|queue|all|handover|window|memory|failover [sentinel|cluster|review]|cluster|harness standalone|sentinel|cluster <total> [fault phase] [--runs=3] [--warmup=2s] "
					+ "[--duration=3s] [--only=redisson,baton,...] [--tasks=100000] [--redis=redis://host:port] ...");
			System.exit(2);
		}
		String scenarios = arguments[0];
		BenchmarkSettings settings = BenchmarkSettings.parse(Arrays.copyOfRange(arguments, 1, arguments.length));
		String configuredUrl = settings.redisUrl();
		try (RedisServer server = (configuredUrl != null) ? null : RedisServers.startLocal();
				RedisProbe probe = new RedisProbe((configuredUrl != null) ? configuredUrl : server.url())) {
			String url = (configuredUrl != null) ? configuredUrl : server.url();
			String machine = machine(probe);
			System.out.println(machine);
			List<Table> tables = run(scenarios, settings, url, probe);
			System.out.println();
			System.out.println("## Results");
			System.out.println();
			System.out.println(machine);
			System.out.println("Load average at the end: " + loadAverage());
			System.out.println();
			for (Table table : tables) {
				if (!table.isEmpty()) {
					System.out.println(table.toMarkdown());
				}
			}
		}
		System.exit(0);
	}

	/**
	 * Runs scenarios and returns their result tables.
	 * @param scenarios {@code locks}, {@code queue} or {@code all}
	 * @param settings the options
	 * @param redisUrl the server under test
	 * @param probe the harness's connection to that server
	 * @return the tables, in the order of {@code docs/benchmarks.md}
	 */
	public static List<Table> run(String scenarios, BenchmarkSettings settings, String redisUrl, RedisProbe probe) {
		List<Table> tables = new ArrayList<>();
		if (!scenarios.equals("queue")) {
			tables.addAll(new LockBenchmarks(settings, redisUrl, probe).run(LockImplementations.all()));
		}
		if (!scenarios.equals("locks")) {
			tables.addAll(new QueueBenchmarks(settings, redisUrl, probe).run(QueueImplementations.all()));
		}
		return tables;
	}

	private static String machine(RedisProbe probe) throws IOException {
		return String.format(Locale.ROOT,
				"Run at %s UTC; %d cores (%s), %.1f GiB memory, Redis %s on the same host, %s %s; load average %s",
				Instant.now().truncatedTo(ChronoUnit.SECONDS), Runtime.getRuntime().availableProcessors(), cpuModel(),
				ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class).getTotalMemorySize()
						/ (1024.0 * 1024 * 1024),
				probe.version(), System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
				loadAverage());
	}

	private static String cpuModel() throws IOException {
		Path cpuInfo = Path.of("/proc/cpuinfo");
		if (!Files.isReadable(cpuInfo)) {
			return System.getProperty("os.arch");
		}
		return Files.readAllLines(cpuInfo)
			.stream()
			.filter((line) -> line.startsWith("model name"))
			.map((line) -> line.substring(line.indexOf(':') + 1).trim())
			.findFirst()
			.orElse(System.getProperty("os.arch"));
	}

	private static String loadAverage() {
		return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
	}

}
