package dev.baton.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's two-instance recipe, each step a process of its own as on a developer's machine:
 * Redis and the database started alone ({@code --services-only}), then two instances sharing them.
 * Stopping either instance leaves the other working: it cancels the unpaid orders placed on the
 * stopped one.
 */
class TwoInstancesRecipeTests {

	private static final Duration STARTUP = Duration.ofSeconds(90);

	private final List<Process> processes = new ArrayList<>();

	@TempDir
	Path dir;

	@AfterEach
	void stopAll() throws InterruptedException {
		for (Process process : this.processes) {
			process.descendants().forEach(ProcessHandle::destroyForcibly);
			process.destroyForcibly();
			process.waitFor(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void eitherInstanceStopsAndTheOtherCancelsItsUnpaidOrders() throws Exception {
		int redisPort = freePort();
		int dbPort = freePort();
		start("services", ServicesOnly.ARGUMENT, "--redis.port=" + redisPort, "--redis.dir=" + this.dir.resolve("redis"),
				"--db.port=" + dbPort, "--db.dir=" + this.dir.resolve("db"));
		await().atMost(STARTUP).until(() -> log("services").contains("Database ready at jdbc:h2:tcp://localhost:" + dbPort));
		assertThat(log("services")).contains("ready at redis://127.0.0.1:" + redisPort);

		Instance first = startInstance("first", redisPort, dbPort);
		Instance second = startInstance("second", redisPort, dbPort);

		List<String> placedOnFirst = placeUnpaidOrders(first);
		stop(first);
		assertAllCancelled(second, first, placedOnFirst);

		Instance firstAgain = startInstance("first-again", redisPort, dbPort);
		List<String> placedOnSecond = placeUnpaidOrders(second);
		stop(second);
		assertAllCancelled(firstAgain, second, placedOnSecond);
	}

	private Instance startInstance(String name, int redisPort, int dbPort) throws IOException {
		int port = freePort();
		Process process = start(name, "--spring.profiles.active=shared-db", "--server.port=" + port,
				"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort,
				"--spring.datasource.url=jdbc:h2:tcp://localhost:" + dbPort + "/orders",
				"--app.instance-id=" + name);
		Instance instance = new Instance(name, process, new HttpTestClient(port));
		await().atMost(STARTUP).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
			assertThat(process.isAlive()).as("%s is running; its log:%n%s", name, log(name)).isTrue();
			assertThat(statusOf(instance, "/actuator/health")).isEqualTo(200);
		});
		return instance;
	}

	private static int statusOf(Instance instance, String path) {
		try {
			return instance.http().send("GET", path).statusCode();
		}
		catch (UncheckedIOException ex) {
			return -1;
		}
	}

	/**
	 * Places orders due while the instance stops right after (the first three, cancelled by
	 * either) and after it stopped.
	 */
	private static List<String> placeUnpaidOrders(Instance instance) {
		List<String> orders = new ArrayList<>();
		for (String paymentTimeout : List.of("1s", "300ms", "600ms", "4s", "4s")) {
			HttpResponse<String> placed = instance.http().send("POST", "/orders?paymentTimeout=" + paymentTimeout);
			orders.add(placed.headers().firstValue("Location").orElseThrow());
		}
		return orders;
	}

	private void stop(Instance instance) throws InterruptedException {
		// SIGTERM, as Ctrl-C or a pod's stop: a graceful shutdown that hands claimed tasks back
		instance.process().destroy();
		assertThat(instance.process().waitFor(60, TimeUnit.SECONDS)).as("%s stopped", instance.name()).isTrue();
	}

	private void assertAllCancelled(Instance survivor, Instance stopped, List<String> orders) {
		await().atMost(Duration.ofSeconds(40))
			.pollInterval(Duration.ofMillis(500))
			.untilAsserted(() -> assertThat(orders)
				.as("orders as %s sees them; its log:%n%s%n%s's log:%n%s%nservices' log:%n%s", survivor.name(),
						log(survivor.name()), stopped.name(), log(stopped.name()), log("services"))
				.allSatisfy((order) -> assertThat(survivor.http().send("GET", order).body()).contains("CANCELLED")));
	}

	private Process start(String name, String... args) throws IOException {
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
				SampleApplication.class.getName()));
		command.addAll(List.of(args));
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(this.dir.resolve(name + ".log").toFile())
			.start();
		this.processes.add(process);
		return process;
	}

	private String log(String name) throws IOException {
		return Files.readString(this.dir.resolve(name + ".log"));
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private record Instance(String name, Process process, HttpTestClient http) {
	}

}
