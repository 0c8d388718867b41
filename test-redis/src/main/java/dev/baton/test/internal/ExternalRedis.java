package dev.baton.test.internal;

import java.net.URI;
import java.time.Duration;

import dev.baton.test.RedisServer;

/** A server that someone else runs, named by URL; never stopped by us. */
public record ExternalRedis(String host, int port, String version) implements RedisServer {

	/**
	 * Connects to the server at {@code url} and reads its version.
	 * @param url a {@code redis://host:port} URL
	 * @return the server
	 */
	public static ExternalRedis connect(String url) {
		URI uri = URI.create(url);
		int port = (uri.getPort() != -1) ? uri.getPort() : 6379;
		String version = ServerProbe.awaitVersion(url, Duration.ofSeconds(10));
		return new ExternalRedis(uri.getHost(), port, version);
	}

	@Override
	public String origin() {
		return "external server";
	}

	@Override
	public void close() {
	}

}
