package dev.baton.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/** A small HTTP client for end-to-end tests of a running sample application. */
final class HttpTestClient {

	private final HttpClient http = HttpClient.newHttpClient();

	private final String baseUrl;

	HttpTestClient(int port) {
		this.baseUrl = "http://localhost:" + port;
	}

	HttpResponse<String> send(String method, String path) {
		return send(method, path, "");
	}

	HttpResponse<String> send(String method, String path, String body) {
		try {
			return this.http.send(request(method, path, body), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Sends {@code count} requests at once and returns their statuses. */
	List<Integer> sendAtOnce(int count, String method, String path) {
		List<CompletableFuture<Integer>> statuses = IntStream.range(0, count)
			.mapToObj((i) -> this.http.sendAsync(request(method, path, ""), HttpResponse.BodyHandlers.ofString())
				.thenApply(HttpResponse::statusCode))
			.toList();
		return statuses.stream().map(CompletableFuture::join).toList();
	}

	private HttpRequest request(String method, String path, String body) {
		return HttpRequest.newBuilder(URI.create(this.baseUrl + path))
			.method(method, HttpRequest.BodyPublishers.ofString(body))
			.header("Content-Type", "text/plain")
			.build();
	}

}
