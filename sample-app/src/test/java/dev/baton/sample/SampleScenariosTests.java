package dev.baton.sample;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.baton.test.RedisTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "app.documents.processing-time=500ms", "app.flash-sale.wait-time=5s", "app.exports.delay=1s" })
@RedisTest
@DirtiesContext
class SampleScenariosTests {

	@Value("${local.server.port}")
	int port;

	HttpTestClient client;

	@BeforeEach
	void connect() {
		this.client = new HttpTestClient(this.port);
	}

	@Test
	void flashSaleSellsExactlyTheStockToConcurrentBuyers() {
		this.client.send("PUT", "/flash-sales/phone?stock=10");

		List<Integer> statuses = this.client.sendAtOnce(200, "POST", "/flash-sales/phone/orders");

		assertThat(statuses).filteredOn((status) -> status == 201).hasSize(10);
		assertThat(statuses).filteredOn((status) -> status != 201).isSubsetOf(409, 429);
		assertThat(this.client.send("GET", "/flash-sales/phone").body()).contains("\"remaining\":0")
			.contains("\"sold\":10");
	}

	@Test
	void soldOutIsAProblemDetail() {
		this.client.send("PUT", "/flash-sales/lamp?stock=0");

		HttpResponse<String> response = this.client.send("POST", "/flash-sales/lamp/orders");

		assertThat(response.statusCode()).isEqualTo(409);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(response.body()).contains("lamp is sold out");
	}

	@Test
	void unpaidOrderIsCancelledAndPaidOrderIsNot() {
		String unpaid = location(this.client.send("POST", "/orders?paymentTimeout=1s"));
		String paid = location(this.client.send("POST", "/orders?paymentTimeout=1s"));
		assertThat(this.client.send("POST", paid + "/payment").statusCode()).isEqualTo(200);

		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.client.send("GET", unpaid).body()).contains("\"status\":\"CANCELLED\""));
		assertThat(this.client.send("GET", paid).body()).contains("\"status\":\"PAID\"");
		assertThat(this.client.send("POST", unpaid + "/payment").statusCode()).isEqualTo(409);
	}

	@Test
	void secondSimultaneousEditOfADocumentIsRefused() {
		CompletableFuture<HttpResponse<String>> first = CompletableFuture
			.supplyAsync(() -> this.client.send("PUT", "/documents/contract-7", "first"));
		CompletableFuture<HttpResponse<String>> second = CompletableFuture
			.supplyAsync(() -> this.client.send("PUT", "/documents/contract-7", "second"));

		List<Integer> statuses = List.of(first.join().statusCode(), second.join().statusCode());

		assertThat(statuses).containsExactlyInAnyOrder(200, 409);
		assertThat(this.client.send("PUT", "/documents/contract-7", "third").body()).contains("\"version\":2");
	}

	@Test
	void anExportHoldsItsLockFromTheRequestUntilTheJobHasRun() {
		assertThat(this.client.send("POST", "/documents/report-9/exports").statusCode()).isEqualTo(202);

		HttpResponse<String> second = this.client.send("POST", "/documents/report-9/exports");

		assertThat(second.statusCode()).isEqualTo(409);
		assertThat(second.body()).contains("An export of this document is pending");
		assertThat(this.client.send("GET", "/actuator/baton/queues/exports").body())
			.as("the actuator shows the lock with its task")
			.contains("\"lock\":\"export:report-9\"");
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.client.send("GET", "/exports").body()).contains("\"report-9\":1"));
		// The job released the lock: the document can be exported again.
		assertThat(this.client.send("POST", "/documents/report-9/exports").statusCode()).isEqualTo(202);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.client.send("GET", "/exports").body()).contains("\"report-9\":2"));
	}

	@Test
	void demoReportsMeasuredNumbers() {
		String report = this.client.send("POST", "/demo").body();

		assertThat(report).contains("10 in stock, 10 sold, 0 oversold")
			.contains("100 placed, 60 paid, 40 auto-cancelled")
			.contains("0 still pending")
			.contains("2 simultaneous edits of one document, 1 saved, 1 refused with 409");
	}

	private static String location(HttpResponse<String> response) {
		assertThat(response.statusCode()).isEqualTo(201);
		return response.headers().firstValue("Location").orElseThrow();
	}

}
