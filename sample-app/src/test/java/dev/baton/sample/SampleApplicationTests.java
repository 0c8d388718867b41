package dev.baton.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.baton.queue.DelayQueue;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@RedisTest
@DirtiesContext
class SampleApplicationTests {

	@Value("${local.server.port}")
	int port;

	@Autowired
	DelayQueue<Long> timeouts;

	@Test
	void healthReportsRedisUp() throws Exception {
		HttpResponse<String> response = get("/actuator/health/redis");

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("\"status\":\"UP\"");
	}

	@Test
	void batonEndpointListsTheOrderTimeoutQueue() throws Exception {
		HttpResponse<String> response = get("/actuator/baton/queues/order-timeout");

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("\"name\":\"order-timeout\"").contains("\"inFlight\":");
	}

	/** The sample is copied: its actuator must not let anyone cancel an order's timeout. */
	@Test
	void anonymousCannotCancelAnOrdersTimeout() throws Exception {
		this.timeouts.schedule("order-1", 1L, Duration.ofHours(1));

		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port
					+ "/actuator/baton/queues/order-timeout/tasks/order-1")).DELETE().build(),
					HttpResponse.BodyHandlers.ofString());

		assertThat(response.statusCode()).isBetween(400, 499);
		assertThat(this.timeouts.find("order-1")).isPresent();
		assertThat(this.timeouts.cancel("order-1")).isTrue();
	}

	@Test
	void healthShowsNoDetailsToAnonymousCallers() throws Exception {
		HttpResponse<String> response = get("/actuator/health/redis");

		assertThat(response.body()).doesNotContain("\"details\"");
	}

	@Test
	void infoShowsBatonVersionButNotRedis() throws Exception {
		HttpResponse<String> response = get("/actuator/info");

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("\"baton\":{\"version\":").doesNotContain("\"redis\"");
	}

	private HttpResponse<String> get(String path) throws Exception {
		return HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
					HttpResponse.BodyHandlers.ofString());
	}

}
