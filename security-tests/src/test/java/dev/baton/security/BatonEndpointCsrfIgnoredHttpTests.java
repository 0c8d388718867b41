package dev.baton.security;

import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import dev.baton.queue.DelayQueue;
import dev.baton.test.RedisTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CSRF protection off for actuator endpoints, as is common where scripts call them with HTTP
 * basic, and Spring's hidden-method filter on, which turns a form's {@code POST} with
 * {@code _method=DELETE} into a {@code DELETE}: the endpoint itself must refuse what a
 * cross-site page can send.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.mvc.hiddenmethod.filter.enabled=true")
@RedisTest
class BatonEndpointCsrfIgnoredHttpTests {

	private static final String QUEUE = "/actuator/baton/queues/reminders";

	private ActuatorClient client;

	private Instant start;

	@Autowired
	@Qualifier("reminders")
	DelayQueue<Reminder> reminders;

	@Autowired
	AuditEventRepository audits;

	@BeforeEach
	void setUp(@Value("${local.server.port}") int port) {
		this.client = new ActuatorClient(port);
		this.start = Instant.now();
		Reminders.fill(this.reminders);
	}

	/** The audit names the Spring Security principal; a DELETE needs no content type. */
	@Test
	void writesAreAuditedWithTheSecurityPrincipal() {
		HttpResponse<String> cancel = this.client.send("DELETE", QUEUE + "/tasks/waiting", "alice", null, null);
		HttpResponse<String> redrive = this.client.send("POST", QUEUE + "/dead-letters/failed/redrive", "bob",
				"application/json", null);

		assertThat(cancel.statusCode()).isEqualTo(200);
		assertThat(redrive.statusCode()).isEqualTo(200);
		assertThat(this.reminders.find(Reminders.WAITING)).isEmpty();
		assertThat(this.reminders.deadLetters(10)).isEmpty();
		assertThat(batonEvents()).satisfiesExactly((event) -> {
			assertThat(event.getPrincipal()).isEqualTo("alice");
			assertThat(event.getType()).isEqualTo("BATON_CANCEL");
			assertThat(event.getData()).containsEntry("id", Reminders.WAITING).containsEntry("outcome", "DONE");
		}, (event) -> {
			assertThat(event.getPrincipal()).isEqualTo("bob");
			assertThat(event.getType()).isEqualTo("BATON_REDRIVE");
			assertThat(event.getData()).containsEntry("id", Reminders.FAILED).containsEntry("outcome", "DONE");
		});
	}

	@Test
	void anonymousWriteIsUnauthorized() {
		HttpResponse<String> response = this.client.send("DELETE", QUEUE + "/tasks/waiting", null, null, null);

		assertThat(response.statusCode()).isEqualTo(401);
		Reminders.assertUnchanged(this.reminders);
	}

	/**
	 * What a cross-site page can make a logged-in browser send without a CORS preflight: a POST
	 * with a form's content type (or none), {@code _method=DELETE} in its body or query. Refused
	 * with 415 before the hidden-method filter turns it into a cancel or purge.
	 */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("crossSiteRequests")
	void crossSitePostChangesNothing(String path, @Nullable String contentType, @Nullable String body) {
		HttpResponse<String> response = this.client.send("POST", QUEUE + path, "alice", contentType, body);

		assertThat(response.statusCode()).isEqualTo(415);
		Reminders.assertUnchanged(this.reminders);
		assertThat(batonEvents()).isEmpty();
	}

	static Stream<Arguments> crossSiteRequests() {
		String form = "application/x-www-form-urlencoded";
		return Stream.of(Arguments.of("/tasks/waiting", form, "_method=DELETE"),
				Arguments.of("/dead-letters/failed", form, "_method=DELETE"),
				Arguments.of("/tasks/waiting?_method=DELETE", "text/plain", "x"),
				Arguments.of("/tasks/waiting?_method=DELETE", "multipart/form-data; boundary=x", "--x--\r\n"),
				Arguments.of("/dead-letters/failed?_method=DELETE", null, null),
				Arguments.of("/dead-letters/failed/redrive", form, "x=1"));
	}

	private List<AuditEvent> batonEvents() {
		// the repository keeps the events of earlier tests too
		return this.audits.find(null, this.start, null)
			.stream()
			.filter((event) -> event.getType().startsWith("BATON_"))
			.toList();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(SecuredApp.class)
	static class App {

		@Bean
		SecurityFilterChain chain(HttpSecurity http) throws Exception {
			return SecuredApp.authenticatedWithBasic(http)
				.csrf((csrf) -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()))
				.build();
		}

	}

}
