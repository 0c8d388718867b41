package dev.baton.autoconfigure.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.baton.autoconfigure.actuate.BatonEndpointHttpTests.Reminder;
import dev.baton.queue.DelayQueue;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

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

	private HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
		return HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
				.method(method, HttpRequest.BodyPublishers.noBody())
				.build(), HttpResponse.BodyHandlers.ofString());
	}

}
