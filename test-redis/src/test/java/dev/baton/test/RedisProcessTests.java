package dev.baton.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.baton.test.internal.RedisProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class RedisProcessTests {

	@Test
	void startsAServerOnAFreePortAndStopsIt() {
		RedisServer server = RedisServers.startLocal();
		assertThat(accepts(server.port())).isTrue();
		assertThat(server.version()).isNotBlank();

		server.close();

		assertThat(accepts(server.port())).isFalse();
	}

	@Test
	void theServersOriginNamesNoOtherVersionThanTheOneItReports() {
		try (RedisServer server = RedisServers.startLocal()) {
			// embedded-redis names its binary redis-server-6.2.6-v5-linux-amd64, which reports 6.2.11
			String binary = Path.of(server.origin().substring(server.origin().lastIndexOf(' ') + 1)).getFileName().toString();
			assertThat(binary).as("binary of %s", server.version()).doesNotContainPattern("\\d+\\.\\d+\\.\\d+");
		}
	}

	@Test
	void closingAServerDeletesItsDirectory() throws IOException {
		Set<Path> before = serverDirectories();
		RedisServer server = RedisServers.startLocal();
		Set<Path> created = new HashSet<>(serverDirectories());
		created.removeAll(before);
		assertThat(created).as("directories of the new server").isNotEmpty();

		server.close();

		assertThat(created).noneMatch(Files::exists);
	}

	@Test
	void aServerWithAnAppendOnlyFileComesBackWithEveryWriteItAnsweredOrWithoutDataIfAsked() {
		try (LocalRedisServer server = RedisServers.startLocal("--appendonly", "yes", "--appendfsync", "no")) {
			RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
			try {
				writeThenKill(client, server);
				server.restart();
				assertThat(keys(client)).as("after a restart").isEqualTo(1000);

				writeThenKill(client, server);
				server.restartWithoutData();
				assertThat(keys(client)).as("after a restart without data").isZero();
			}
			finally {
				client.shutdown();
			}
		}
	}

	/** Writes 1,000 keys, and kills the server as soon as the last is answered: not fsynced, yet written. */
	private static void writeThenKill(RedisClient client, LocalRedisServer server) {
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			for (int i = 0; i < 1000; i++) {
				connection.async().set("key:" + i, "value");
			}
			connection.sync().set("key:999", "value");
		}
		server.kill();
	}

	private static long keys(RedisClient client) {
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return connection.sync().dbsize();
		}
	}

	private static Set<Path> serverDirectories() throws IOException {
		try (Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
			return entries.filter((entry) -> entry.getFileName().toString().startsWith("baton-redis-"))
				.collect(Collectors.toSet());
		}
	}

	@Test
	void startsIndependentServers() {
		try (RedisServer first = RedisServers.startLocal(); RedisServer second = RedisServers.startLocal()) {
			assertThat(first.port()).isNotEqualTo(second.port());
		}
	}

	@Test
	void startsAServerOnTheRequestedPortAndFailsWhenItIsTaken() throws IOException {
		int port;
		try (ServerSocket probe = new ServerSocket(0)) {
			port = probe.getLocalPort();
		}
		try (RedisServer server = RedisServers.startLocal(port)) {
			assertThat(server.port()).isEqualTo(port);
			assertThat(accepts(port)).isTrue();
			assertThatIllegalStateException().isThrownBy(() -> RedisServers.startLocal(port))
				.withMessageContaining("port " + port);
		}
	}

	@Test
	void serverDiesWithTheJvmThatStartedItEvenOnSigkill() throws Exception {
		Process child = new ProcessBuilder(javaBin(), "-cp", System.getProperty("java.class.path"),
				ServerOwner.class.getName())
			.redirectErrorStream(true)
			.start();
		BufferedReader output = new BufferedReader(new InputStreamReader(child.getInputStream()));
		String line = output.readLine();
		while (line != null && !line.startsWith("port=")) {
			line = output.readLine();
		}
		assertThat(line).as("child JVM announced its server").isNotNull();
		int port = Integer.parseInt(line.substring("port=".length()).trim());
		assertThat(accepts(port)).isTrue();

		child.destroyForcibly();
		assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();

		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (accepts(port) && System.nanoTime() < deadline) {
			Thread.sleep(50);
		}
		assertThat(accepts(port)).as("redis-server of a SIGKILLed JVM still listening on %d", port).isFalse();
	}

	private static String javaBin() {
		return String.join(java.io.File.separator, List.of(System.getProperty("java.home"), "bin", "java"));
	}

	private static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/** Child JVM: starts a server, prints its port, then waits to be killed. */
	static final class ServerOwner {

		public static void main(String[] args) throws InterruptedException {
			RedisProcess server = RedisProcess.start();
			System.out.println("port=" + server.port());
			System.out.flush();
			Thread.sleep(Duration.ofMinutes(2).toMillis());
		}

	}

}
