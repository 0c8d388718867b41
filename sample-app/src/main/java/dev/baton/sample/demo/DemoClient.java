package dev.baton.sample.demo;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.stream.IntStream;

/** Calls the running application over HTTP, as its users would. */
class DemoClient {

	private final HttpClient http = HttpClient.newHttpClient();

	private final String baseUrl;

	DemoClient(int port) {
		this.baseUrl = "http://localhost:" + port;
	}

	int send(String method, String path, String body) {
		return sendAsync(method, path, body).join().statusCode();
	}

	HttpResponse<String> exchange(String method, String path) {
		return sendAsync(method, path, "").join();
	}

	/** Sends {@code count} copies of a request with at most {@code parallelism} in flight; returns the statuses. */
	List<Integer> sendConcurrently(int count, int parallelism, String method, String path) {
		Semaphore inFlight = new Semaphore(parallelism);
		List<CompletableFuture<Integer>> statuses = IntStream.range(0, count).mapToObj((i) -> {
			inFlight.acquireUninterruptibly();
			return sendAsync(method, path, "").thenApply(HttpResponse::statusCode)
				.whenComplete((status, ex) -> inFlight.release());
		}).toList();
		return statuses.stream().map(CompletableFuture::join).toList();
	}

	private CompletableFuture<HttpResponse<String>> sendAsync(String method, String path, String body) {
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.baseUrl + path))
			.method(method, HttpRequest.BodyPublishers.ofString(body))
			.header("Content-Type", "text/plain")
			.build();
		return this.http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
	}

}
