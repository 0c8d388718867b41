package dev.baton.autoconfigure.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.Arrays;

import dev.baton.autoconfigure.actuate.BatonEndpointHttpTests.Reminder;
import dev.baton.queue.DelayQueue;
import dev.baton.test.RedisTest;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/** show-values=when-authorized with roles: only a principal in one of the roles sees payloads and reasons. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=baton",
				"management.endpoint.baton.show-values=when-authorized", "management.endpoint.baton.roles=ops",
				"baton.queue.queues.reminders.payload-type=dev.baton.autoconfigure.actuate.BatonEndpointHttpTests$Reminder" })
@RedisTest
class BatonEndpointWhenAuthorizedHttpTests {

	@Value("${local.server.port}")
	int port;

	@Autowired
	@Qualifier("reminders")
	DelayQueue<Reminder> reminders;

	@BeforeEach
	void deadLetter() {
		this.reminders.schedule("failed", new Reminder("pay"), Duration.ZERO);
		assertThat(this.reminders.poll(1).get(0).deadLetter("refused")).isTrue();
	}

	@Test
	void principalInARoleSeesValues() throws Exception {
		JsonNode deadLetter = deadLetterAs("alice", "ops");

		assertThat(deadLetter.get("payload").get("text").asString()).isEqualTo("pay");
		assertThat(deadLetter.get("reason").asString()).isEqualTo("refused");
	}

	@Test
	void principalInNoneOfTheRolesSeesThemMasked() throws Exception {
		JsonNode deadLetter = deadLetterAs("bob", "support");

		assertThat(deadLetter.get("id").asString()).isEqualTo("failed");
		assertThat(deadLetter.get("payload").asString()).isEqualTo("******");
		assertThat(deadLetter.get("reason").asString()).isEqualTo("******");
	}

	@Test
	void anonymousSeesThemMasked() throws Exception {
		JsonNode deadLetter = deadLetterAs(null, null);

		assertThat(deadLetter.get("payload").asString()).isEqualTo("******");
		assertThat(deadLetter.get("reason").asString()).isEqualTo("******");
	}

	private JsonNode deadLetterAs(String user, String roles) throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port + "/actuator/baton/queues/reminders"));
		if (user != null) {
			request.header("X-User", user).header("X-Roles", roles);
		}
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(request.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(200);
		return JsonMapper.builder().build().readTree(response.body()).get("deadLetters").get(0);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		/** Stands in for an authentication filter: X-User names the principal, X-Roles its roles. */
		@Bean
		Filter principalFromHeaders() {
			return (request, response, chain) -> {
				HttpServletRequest http = (HttpServletRequest) request;
				String user = http.getHeader("X-User");
				chain.doFilter((user != null) ? new HttpServletRequestWrapper(http) {

					@Override
					public Principal getUserPrincipal() {
						return () -> user;
					}

					@Override
					public boolean isUserInRole(String role) {
						return Arrays.asList(http.getHeader("X-Roles").split(",")).contains(role);
					}

				} : request, response);
			};
		}

	}

}
