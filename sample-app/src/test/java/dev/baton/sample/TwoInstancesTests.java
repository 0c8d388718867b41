package dev.baton.sample;

import java.net.http.HttpResponse;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.baton.test.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of the sample, sharing one Redis and one database, as two pods would: the report
 * job runs on one instance at a time and each unpaid order is cancelled exactly once.
 */
@RedisTest
class TwoInstancesTests {

	static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@BeforeAll
	static void startTwoInstances(RedisServer redis) {
		for (String name : List.of("alpha", "beta")) {
			instances.add(new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0",
					"--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
					"--spring.datasource.url=jdbc:h2:mem:two-instances;DB_CLOSE_DELAY=-1", "--app.instance-id=" + name,
					"--app.report.interval=500ms", "--app.report.lock-at-least-for=400ms"));
		}
	}

	@AfterAll
	static void stopInstances() {
		instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void reportJobNeverRunsOnBothInstancesAtOnce() {
		JdbcClient jdbc = instances.get(0).getBean(JdbcClient.class);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> jdbc.sql("select count(*) from report_runs").query(Long.class).single() >= 6);

		List<Map<String, Object>> runs = jdbc.sql("select instance, started_at from report_runs order by started_at")
			.query()
			.listOfRows();
		for (int i = 1; i < runs.size(); i++) {
			long gap = Duration.between(startedAt(runs.get(i - 1)), startedAt(runs.get(i))).toMillis();
			// 400 ms lock-at-least-for, less a little for the time between acquiring and recording
			assertThat(gap).as("runs %d and %d overlap the lock-at-least-for window", i - 1, i).isGreaterThanOrEqualTo(350);
		}
	}

	@Test
	void eachUnpaidOrderIsCancelledOnceWhicheverInstanceHandlesIt() {
		HttpTestClient alpha = new HttpTestClient(port(instances.get(0)));
		List<String> orders = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			HttpResponse<String> placed = alpha.send("POST", "/orders?paymentTimeout=1s");
			orders.add(placed.headers().firstValue("Location").orElseThrow());
		}

		await().atMost(Duration.ofSeconds(15))
			.untilAsserted(() -> assertThat(orders)
				.allSatisfy((order) -> assertThat(alpha.send("GET", order).body()).contains("CANCELLED")));
		assertThat(handledTimeouts()).isEqualTo(20);
	}

	private static Instant startedAt(Map<String, Object> run) {
		return ((Timestamp) run.get("STARTED_AT")).toInstant();
	}

	private static double handledTimeouts() {
		return instances.stream()
			.mapToDouble((context) -> context.getBean(MeterRegistry.class)
				.find("baton.queue.handle")
				.tag("queue", "order-timeout")
				.timers()
				.stream()
				.mapToDouble(Timer::count)
				.sum())
			.sum();
	}

	private static int port(ConfigurableApplicationContext context) {
		return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

}
