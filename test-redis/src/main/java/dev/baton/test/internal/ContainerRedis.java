package dev.baton.test.internal;

import java.time.Duration;

import dev.baton.test.RedisServer;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/** A {@code redis:7-alpine} container; Testcontainers' reaper removes it if this JVM dies. */
public final class ContainerRedis implements RedisServer {

	// A string, not a DockerImageName: loading this class must not need Testcontainers.
	private static final String IMAGE = "redis:7-alpine";

	private final GenericContainer<?> container;

	private final String version;

	private ContainerRedis(GenericContainer<?> container, String version) {
		this.container = container;
		this.version = version;
	}

	/**
	 * Whether Testcontainers is on the class path and a Docker engine answers. Without an engine,
	 * Testcontainers is not asked, so that nothing is logged at ERROR.
	 * @return {@code true} if a container can be started
	 */
	public static boolean isDockerAvailable() {
		try {
			Class.forName("org.testcontainers.DockerClientFactory", false, ContainerRedis.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			return false;
		}
		if (!DockerProbe.engineMayAnswer()) {
			return false;
		}
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * Starts a container and waits until it answers.
	 * @return the running server
	 */
	public static ContainerRedis start() {
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(IMAGE)).withExposedPorts(6379);
		container.start();
		String url = "redis://" + container.getHost() + ":" + container.getMappedPort(6379);
		return new ContainerRedis(container, ServerProbe.awaitVersion(url, Duration.ofSeconds(30)));
	}

	@Override
	public String host() {
		return this.container.getHost();
	}

	@Override
	public int port() {
		return this.container.getMappedPort(6379);
	}

	@Override
	public String version() {
		return this.version;
	}

	@Override
	public String origin() {
		return "testcontainers " + IMAGE;
	}

	@Override
	public void close() {
		this.container.stop();
	}

}
