package dev.baton.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.jspecify.annotations.Nullable;

/**
 * Sends real HTTP requests to the application under test, as a user with HTTP basic or
 * anonymously ({@code null} user). Like a browser or {@code curl}, it sends no CSRF token.
 */
public final class ActuatorClient {

	private final HttpClient http = HttpClient.newHttpClient();

	private final int port;

	/**
	 * Create a client of the server on this port of {@code localhost}.
	 * @param port the server's port
	 */
	public ActuatorClient(int port) {
		this.port = port;
	}

	/**
	 * A {@code GET}.
	 * @param path the path, with its query
	 * @param user who asks, or {@code null} for nobody
	 * @return the response
	 */
	public HttpResponse<String> get(String path, @Nullable String user) {
		return send("GET", path, user, null, null);
	}

	/**
	 * Any request.
	 * @param method the method
	 * @param path the path, with its query
	 * @param user who asks, or {@code null} for nobody
	 * @param contentType the {@code Content-Type}, or {@code null} for none
	 * @param body the body, or {@code null} for none
	 * @return the response
	 */
	public HttpResponse<String> send(String method, String path, @Nullable String user, @Nullable String contentType,
			@Nullable String body) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, (body != null) ? HttpRequest.BodyPublishers.ofString(body)
					: HttpRequest.BodyPublishers.noBody());
		if (contentType != null) {
			request.header("Content-Type", contentType);
		}
		if (user != null) {
			String credentials = user + ":" + SecuredApp.PASSWORD;
			request.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
		}
		try {
			return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
