package dev.baton.docs;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.baton.docs.gettingstarted.ReminderApplication;
import dev.baton.docs.gettingstarted.Reminder;
import dev.baton.docs.gettingstarted.Reminders;
import dev.baton.docs.gettingstarted.Settlement;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.test.RedisTest;
import dev.baton.test.queue.QueueClock;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.YamlPropertiesFactoryBean;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The application of docs/getting-started.md, run as the page builds it: its classes as shown and
 * exactly the settings of its YAML blocks, read from the page ({@code spring.data.redis.url} of
 * step 2, which the test server of {@code @RedisTest} wins over, and the actuator settings of step
 * 6); no {@code application.yml} of the sample is read.
 */
@SpringBootTest(classes = ReminderApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=getting-started-has-no-application-yml")
@RedisTest
@DirtiesContext
class GettingStartedTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

	@DynamicPropertySource
	static void settingsOfThePage(DynamicPropertyRegistry registry) throws IOException {
		String page = Files.readString(Path.of("../docs/getting-started.md"));
		Matcher block = YAML_BLOCK.matcher(page);
		Properties settings = new Properties();
		while (block.find()) {
			YamlPropertiesFactoryBean yaml = new YamlPropertiesFactoryBean();
			yaml.setResources(new ByteArrayResource(block.group(1).getBytes(StandardCharsets.UTF_8)));
			settings.putAll(yaml.getObject());
		}
		assertThat(settings).containsKeys("spring.data.redis.url", "management.endpoints.web.exposure.include");
		settings.forEach((name, value) -> registry.add((String) name, () -> value));
	}

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	int port;

	@Autowired
	Reminders reminders;

	@Autowired
	@Qualifier("reminders")
	DelayQueue<Reminder> queue;

	@Autowired
	Settlement settlement;

	@Autowired
	LockManager locks;

	@Test
	void remindersAreScheduledAndHandledThirtyMinutesLater() {
		String id = this.reminders.remindLater(new Reminder("u-1", "pay the invoice"));
		assertThat(this.queue.find(id)).isPresent();

		QueueClock.advance(this.queue, Duration.ofMinutes(30));

		await().atMost(Duration.ofSeconds(10)).until(() -> this.queue.find(id).isEmpty());
		assertThat(this.queue.stats().dead()).isZero();
	}

	@Test
	void settlementRunsOnceAtATime() {
		this.settlement.settle("acc-1");
		try (LockLease running = this.locks.tryAcquire("settlement:acc-1", Duration.ZERO).orElseThrow()) {
			assertThatIllegalStateException().isThrownBy(() -> this.settlement.settle("acc-1"))
				.withMessage("settlement already running");
			this.settlement.settle("acc-2");
		}
	}

	@Test
	void batonShowsUpInHealthItsEndpointAndPrometheus() throws Exception {
		String id = this.reminders.remindLater(new Reminder("u-2", "renew"));
		QueueClock.runAllNow(this.queue);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.queue.find(id).isEmpty());
		this.settlement.settle("acc-3");

		JsonNode health = JSON.readTree(get("/actuator/health"));
		assertThat(health.at("/components/baton/status").asString()).isEqualTo("UP");
		JsonNode baton = JSON.readTree(get("/actuator/health/baton"));
		assertThat(baton.at("/status").asString()).isEqualTo("UP");
		assertThat(baton.at("/components/locks/status").asString()).isEqualTo("UP");
		assertThat(baton.at("/components/queues/status").asString()).isEqualTo("UP");
		assertThat(baton.at("/components/queues/details").isMissingNode()).as("details for anonymous users").isTrue();
		assertThat(JSON.readTree(get("/actuator/baton")).at("/queues/reminders/dead").isNumber()).isTrue();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get("/actuator/prometheus"))
			.contains("baton_queue_handle_seconds_count{error=\"none\",outcome=\"success\",queue=\"reminders\"}")
			.contains("baton_queue_lateness_seconds_count{queue=\"reminders\"}")
			.contains("baton_queue_schedule_seconds_count{error=\"none\",queue=\"reminders\"}")
			.contains("baton_lock_acquire_seconds_count{error=\"none\",lock=\"settlement\",outcome=\"acquired\"}")
			.contains("baton_queue_depth{queue=\"reminders\",state=\"dead\"}"));
	}

	@Test
	void theBatonEndpointTakesNoWrites() throws Exception {
		String id = this.reminders.remindLater(new Reminder("u-3", "call back"));

		HttpResponse<String> cancel = this.http.send(HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port + "/actuator/baton/queues/reminders/tasks/" + id))
			.DELETE()
			.build(), HttpResponse.BodyHandlers.ofString());

		assertThat(cancel.statusCode()).isIn(404, 405);
		assertThat(this.queue.find(id)).isPresent();
	}

	private String get(String path) throws IOException, InterruptedException {
		HttpResponse<String> response = this.http.send(
				HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(path).isEqualTo(200);
		return response.body();
	}

}
