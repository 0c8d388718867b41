package dev.baton.autoconfigure.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.baton.autoconfigure.actuate.BatonEndpointHttpTests.Reminder;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest(classes = BatonEndpointHttpTests.App.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=baton",
				"management.endpoint.baton.writable-queues=reminders",
				"baton.queue.queues.reminders.payload-type=dev.baton.autoconfigure.actuate.BatonEndpointHttpTests$Reminder" })
@RedisTest
class BatonEndpointDefaultAccessHttpTests {

	@Value("${local.server.port}")
	int port;

	@Autowired
	@Qualifier("reminders")
	DelayQueue<Reminder> reminders;

	@Autowired
	StringRedisTemplate redis;

	/** Exposing the endpoint is not enough to change Redis: writes need management.endpoint.baton.access. */
	@Test
	void accessIsReadOnlyByDefault() throws IOException, InterruptedException {
		this.reminders.schedule("waiting", new Reminder("w"), Duration.ofHours(1));

		assertThat(send("GET", "/actuator/baton/queues/reminders").statusCode()).isEqualTo(200);
		int cancel = send("DELETE", "/actuator/baton/queues/reminders/tasks/waiting").statusCode();

		assertThat(cancel).isBetween(400, 499);
		assertThat(this.redis.opsForHash().hasKey("baton:q:{reminders}:tasks", "waiting")).isTrue();
		assertThat(this.reminders.find("waiting")).isPresent();
	}

	/** Payloads, unreadable payloads and reasons are masked unless show-values says otherwise; ids, counts, times stay. */
	@Test
	void valuesAreMaskedByDefault(@Autowired DelayQueues queues) throws IOException, InterruptedException {
		this.reminders.schedule("waiting", new Reminder("IBAN DE44500105175407324931"), Duration.ofHours(1));
		queues.get("reminders", String.class).schedule("poison", "DE44500105175407324931", Duration.ofHours(2));
		this.reminders.schedule("failed", new Reminder("IBAN DE44500105175407324931"), Duration.ZERO);
		assertThat(this.reminders.poll(1).get(0).deadLetter("IBAN DE44500105175407324931 refused")).isTrue();

		HttpResponse<String> response = send("GET", "/actuator/baton/queues/reminders");

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).doesNotContain("DE4450");
		JsonNode body = JsonMapper.builder().build().readTree(response.body());
		assertThat(body.get("stats").get("dead").asLong()).isEqualTo(1);
		JsonNode waiting = body.get("nextDue").get(0);
		assertThat(waiting.get("id").asString()).isEqualTo("waiting");
		assertThat(waiting.get("payload").asString()).isEqualTo("******");
		assertThat(waiting.get("dueAt").asString()).isNotBlank();
		assertThat(waiting.get("unreadablePayload").isNull()).isTrue();
		JsonNode poison = body.get("nextDue").get(1);
		assertThat(poison.get("payload").isNull()).isTrue();
		assertThat(poison.get("unreadablePayload").asString()).isEqualTo("******");
		JsonNode deadLetter = body.get("deadLetters").get(0);
		assertThat(deadLetter.get("id").asString()).isEqualTo("failed");
		assertThat(deadLetter.get("payload").asString()).isEqualTo("******");
		assertThat(deadLetter.get("reason").asString()).isEqualTo("******");
		assertThat(deadLetter.get("attempts").asInt()).isEqualTo(1);
		assertThat(deadLetter.get("failedAt").asString()).isNotBlank();
	}

	private HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
		return HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
				.method(method, HttpRequest.BodyPublishers.noBody())
				.build(), HttpResponse.BodyHandlers.ofString());
	}

}
