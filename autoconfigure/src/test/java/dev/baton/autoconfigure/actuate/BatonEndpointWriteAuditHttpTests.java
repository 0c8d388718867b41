package dev.baton.autoconfigure.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.autoconfigure.actuate.BatonEndpointHttpTests.Reminder;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisTest;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes enabled: each is audited and logged, and only a queue this application consumes (here
 * {@code orders}, with a handler) can be changed; {@code reminders} is only produced to.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=baton", "management.endpoint.baton.access=unrestricted",
				"baton.queue.command-timeout=300ms",
				"baton.queue.queues.reminders.payload-type=dev.baton.autoconfigure.actuate.BatonEndpointHttpTests$Reminder" })
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class BatonEndpointWriteAuditHttpTests {

	@Value("${local.server.port}")
	int port;

	@Autowired
	@Qualifier("orders")
	DelayQueue<Reminder> orders;

	@Autowired
	@Qualifier("reminders")
	DelayQueue<Reminder> reminders;

	@Autowired
	AuditEvents audits;

	@Autowired
	StringRedisTemplate redis;

	@BeforeEach
	void clearAudits() {
		this.audits.events.clear();
	}

	@Test
	void cancelOfAConsumedQueueIsAuditedWithThePrincipalAndLogged(CapturedOutput output) throws Exception {
		this.orders.schedule("order-1", new Reminder("pay"), Duration.ofHours(1));

		int status = send("DELETE", "/actuator/baton/queues/orders/tasks/order-1", "alice").statusCode();

		assertThat(status).isEqualTo(200);
		assertThat(this.orders.find("order-1")).isEmpty();
		assertThat(this.audits.events).singleElement().satisfies((event) -> {
			assertThat(event.getPrincipal()).isEqualTo("alice");
			assertThat(event.getType()).isEqualTo("BATON_CANCEL");
			assertThat(event.getData()).isEqualTo(
					Map.of("queue", "orders", "id", "order-1", "action", "cancel", "outcome", "DONE"));
		});
		assertThat(output).contains("cancel of task 'order-1' in queue 'orders' by alice: DONE");
	}

	@Test
	void writeToAQueueTheApplicationOnlyProducesToIsRefusedAndAudited(CapturedOutput output) throws Exception {
		this.reminders.schedule("order-2", new Reminder("timeout"), Duration.ofHours(1));

		int status = send("DELETE", "/actuator/baton/queues/reminders/tasks/order-2", null).statusCode();

		assertThat(status).isEqualTo(403);
		assertThat(this.reminders.find("order-2")).isPresent();
		assertThat(this.audits.events).singleElement().satisfies((event) -> {
			assertThat(event.getPrincipal()).isEqualTo("anonymous");
			assertThat(event.getData()).containsEntry("outcome", "REFUSED").containsEntry("queue", "reminders");
		});
		assertThat(output).contains("cancel of task 'order-2' in queue 'reminders' by anonymous: REFUSED");
	}

	/** A forged log line in the id: refused before the audit could log it, whatever the queue. */
	@Test
	void idWithALineBreakIsABadRequestAndNotAudited(CapturedOutput output) throws Exception {
		String forged = "x%0A%5Baudit%5D%20payout%20APPROVED";

		assertThat(send("DELETE", "/actuator/baton/queues/reminders/tasks/" + forged, null).statusCode()).isEqualTo(400);
		assertThat(send("DELETE", "/actuator/baton/queues/orders/tasks/" + forged, null).statusCode()).isEqualTo(400);

		assertThat(this.audits.events).isEmpty();
		assertThat(output).doesNotContain("[audit] payout");
	}

	@Test
	void redriveOfAMissingDeadLetterIsAuditedAsNotFound() throws Exception {
		int status = send("POST", "/actuator/baton/queues/orders/dead-letters/none/redrive", "bob").statusCode();

		assertThat(status).isEqualTo(404);
		assertThat(this.audits.events).singleElement()
			.satisfies((event) -> assertThat(event.getData()).containsEntry("action", "redrive")
				.containsEntry("outcome", "NOT_FOUND"));
	}

	@Test
	void writeThatFailsIsAuditedAsFailed() throws Exception {
		this.orders.schedule("order-3", new Reminder("pay"), Duration.ofHours(1));
		// Redis takes no write for a while: the cancel script times out
		client("PAUSE", "2000", "WRITE");
		int status;
		try {
			status = send("DELETE", "/actuator/baton/queues/orders/tasks/order-3", "carol").statusCode();
		}
		finally {
			client("UNPAUSE");
		}

		assertThat(status).isEqualTo(500);
		assertThat(this.audits.events).singleElement()
			.satisfies((event) -> assertThat(event.getData()).containsEntry("outcome", "FAILED"));
	}

	private void client(String... arguments) {
		byte[][] bytes = new byte[arguments.length][];
		for (int i = 0; i < arguments.length; i++) {
			bytes[i] = arguments[i].getBytes(StandardCharsets.UTF_8);
		}
		this.redis.execute((RedisCallback<Object>) (connection) -> connection.execute("CLIENT", bytes));
	}

	private HttpResponse<String> send(String method, String path, String user) throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.header("Content-Type", "application/json");
		if (user != null) {
			request.header("X-User", user);
		}
		return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Orders orders() {
			return new Orders();
		}

		@Bean
		AuditEvents auditEvents() {
			return new AuditEvents();
		}

		/** Stands in for an authentication filter: the X-User header names the principal. */
		@Bean
		Filter principalFromHeader() {
			return (request, response, chain) -> {
				String user = ((HttpServletRequest) request).getHeader("X-User");
				chain.doFilter((user != null) ? new HttpServletRequestWrapper((HttpServletRequest) request) {

					@Override
					public Principal getUserPrincipal() {
						return () -> user;
					}

				} : request, response);
			};
		}

	}

	static class Orders {

		@DelayedTask(queue = "orders")
		void handle(Reminder reminder) {
		}

	}

	static class AuditEvents {

		final List<AuditEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void on(AuditApplicationEvent event) {
			this.events.add(event.getAuditEvent());
		}

	}

}
