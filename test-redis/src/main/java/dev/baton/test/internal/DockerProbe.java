package dev.baton.test.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * Asks whether a Docker engine answers before Testcontainers is asked, because Testcontainers
 * logs an ERROR when it finds none, and a machine without Docker is a normal place to run the
 * tests. Looks where Testcontainers looks: {@code DOCKER_HOST}, its own properties file, and the
 * usual sockets; a socket must answer {@code /_ping}.
 */
final class DockerProbe {

	private DockerProbe() {
	}

	static boolean engineMayAnswer() {
		String dockerHost = System.getenv("DOCKER_HOST");
		if (dockerHost != null && !dockerHost.isBlank()) {
			return answers(dockerHost);
		}
		Path home = Path.of(System.getProperty("user.home"));
		if (Files.exists(home.resolve(".testcontainers.properties"))) {
			// Configured for Testcontainers: let it decide.
			return true;
		}
		return sockets(home).anyMatch(DockerProbe::pings);
	}

	private static Stream<Path> sockets(Path home) {
		String runtime = System.getenv("XDG_RUNTIME_DIR");
		List<Path> candidates = Stream.of(Path.of("/var/run/docker.sock"), home.resolve(".docker/run/docker.sock"),
				home.resolve(".docker/desktop/docker.sock"), home.resolve(".rd/docker.sock"),
				home.resolve(".colima/default/docker.sock"), (runtime != null) ? Path.of(runtime, "docker.sock") : null,
				(runtime != null) ? Path.of(runtime, "podman/podman.sock") : null)
			.filter((path) -> path != null)
			.toList();
		return candidates.stream().filter(Files::exists);
	}

	private static boolean answers(String dockerHost) {
		URI uri = URI.create(dockerHost);
		if ("unix".equals(uri.getScheme())) {
			return pings(Path.of(uri.getPath()));
		}
		if ("tcp".equals(uri.getScheme()) && uri.getHost() != null) {
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 1000);
				return true;
			}
			catch (IOException ex) {
				return false;
			}
		}
		return true;
	}

	private static boolean pings(@Nullable Path socket) {
		if (socket == null) {
			return false;
		}
		try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
			channel.connect(UnixDomainSocketAddress.of(socket));
			channel.write(ByteBuffer.wrap("GET /_ping HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
			ByteBuffer reply = ByteBuffer.allocate(64);
			channel.read(reply);
			return new String(reply.array(), 0, reply.position(), StandardCharsets.US_ASCII).startsWith("HTTP/1.");
		}
		catch (IOException | RuntimeException ex) {
			return false;
		}
	}

}
