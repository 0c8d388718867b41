package dev.baton.security;

import java.net.http.HttpResponse;

import dev.baton.queue.DelayQueue;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A typical chain: every request authenticated with HTTP basic, CSRF protection at Spring
 * Security's default (on). Values are shown to role {@code OPS} only ({@code application.properties}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@RedisTest
class BatonEndpointCsrfOnHttpTests {

	private final JsonMapper json = JsonMapper.builder().build();

	private ActuatorClient client;

	@Autowired
	@Qualifier("reminders")
	DelayQueue<Reminder> reminders;

	@Autowired
	AuditEventRepository audits;

	@BeforeEach
	void setUp(@Value("${local.server.port}") int port) {
		this.client = new ActuatorClient(port);
		Reminders.fill(this.reminders);
	}

	@ParameterizedTest
	@ValueSource(strings = { "/actuator/baton", "/actuator/baton/queues/reminders" })
	void anonymousReadIsUnauthorized(String path) {
		assertThat(this.client.get(path, null).statusCode()).isEqualTo(401);
	}

	@Test
	void userInTheRoleSeesPayloadsAndReasons() {
		JsonNode queue = queueAs("alice");

		assertThat(queue.get("nextDue").get(0).get("payload").get("text").asString()).isEqualTo(Reminders.TEXT);
		JsonNode deadLetter = queue.get("deadLetters").get(0);
		assertThat(deadLetter.get("payload").get("text").asString()).isEqualTo(Reminders.TEXT);
		assertThat(deadLetter.get("reason").asString()).isEqualTo(Reminders.REASON);
		assertIdsCountsAndTimesShown(queue);
	}

	@Test
	void userInNoneOfTheRolesSeesThemMasked() {
		JsonNode queue = queueAs("bob");

		assertThat(queue.get("nextDue").get(0).get("payload").asString()).isEqualTo("******");
		JsonNode deadLetter = queue.get("deadLetters").get(0);
		assertThat(deadLetter.get("payload").asString()).isEqualTo("******");
		assertThat(deadLetter.get("reason").asString()).isEqualTo("******");
		assertIdsCountsAndTimesShown(queue);
	}

	/** Spring Security's CSRF filter refuses them before the endpoint runs: nothing changed, nothing audited. */
	@ParameterizedTest
	@ValueSource(strings = { "DELETE /actuator/baton/queues/reminders/tasks/waiting",
			"DELETE /actuator/baton/queues/reminders/dead-letters/failed",
			"POST /actuator/baton/queues/reminders/dead-letters/failed/redrive" })
	void authenticatedWriteWithoutACsrfTokenIsForbiddenAndChangesNothing(String request) {
		String[] methodAndPath = request.split(" ");

		HttpResponse<String> response = this.client.send(methodAndPath[0], methodAndPath[1], "alice",
				"application/json", null);

		assertThat(response.statusCode()).isEqualTo(403);
		Reminders.assertUnchanged(this.reminders);
		assertThat(this.audits.find(null, null, null)).noneMatch((event) -> event.getType().startsWith("BATON_"));
	}

	private JsonNode queueAs(String user) {
		HttpResponse<String> response = this.client.get("/actuator/baton/queues/reminders", user);
		assertThat(response.statusCode()).isEqualTo(200);
		return this.json.readTree(response.body());
	}

	private static void assertIdsCountsAndTimesShown(JsonNode queue) {
		assertThat(queue.get("stats").get("scheduled").asLong()).isEqualTo(1);
		assertThat(queue.get("stats").get("dead").asLong()).isEqualTo(1);
		JsonNode task = queue.get("nextDue").get(0);
		assertThat(task.get("id").asString()).isEqualTo(Reminders.WAITING);
		assertThat(task.get("dueAt").asString()).isNotBlank();
		JsonNode deadLetter = queue.get("deadLetters").get(0);
		assertThat(deadLetter.get("id").asString()).isEqualTo(Reminders.FAILED);
		assertThat(deadLetter.get("attempts").asInt()).isEqualTo(1);
		assertThat(deadLetter.get("failedAt").asString()).isNotBlank();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(SecuredApp.class)
	static class App {

		@Bean
		SecurityFilterChain chain(HttpSecurity http) throws Exception {
			return SecuredApp.authenticatedWithBasic(http).build();
		}

	}

}
