package dev.baton.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

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

	@Test
	void infoShowsBatonAndRedisVersions() throws Exception {
		HttpResponse<String> response = get("/actuator/info");

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("\"baton\":{\"version\":").contains("\"mode\":\"standalone\"");
	}

	private HttpResponse<String> get(String path) throws Exception {
		return HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
					HttpResponse.BodyHandlers.ofString());
	}

}
