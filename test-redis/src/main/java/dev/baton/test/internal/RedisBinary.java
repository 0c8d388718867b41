package dev.baton.test.internal;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * Finds a {@code redis-server} executable: the one on the {@code PATH}, else the binary for this
 * platform shipped inside the {@code embedded-redis} jar, extracted once per JVM.
 */
final class RedisBinary {

	private static final String EMBEDDED_MARKER_CLASS = "redis/embedded/RedisServer.class";

	private static @Nullable Path resolved;

	private RedisBinary() {
	}

	static synchronized Path resolve() {
		if (resolved == null) {
			Path onPath = findOnPath();
			resolved = (onPath != null) ? onPath : extractEmbedded();
		}
		return resolved;
	}

	private static @Nullable Path findOnPath() {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		return Stream.of(path.split(File.pathSeparator))
			.filter((dir) -> !dir.isBlank())
			.map((dir) -> Path.of(dir, "redis-server"))
			.filter(Files::isExecutable)
			.findFirst()
			.orElse(null);
	}

	private static Path extractEmbedded() {
		String suffix = platformSuffix();
		try (JarFile jar = embeddedJar()) {
			JarEntry entry = jar.stream()
				.filter((candidate) -> candidate.getName().startsWith("redis-server-"))
				.filter((candidate) -> candidate.getName().endsWith(suffix))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException(
						"embedded-redis ships no redis-server for " + suffix + "; install redis-server on the PATH"));
			// Not under the entry's name: redis-server-6.2.6-v5-linux-amd64 reports 6.2.11, and the
			// version the server reports is what the logs give.
			Path target = Files.createTempDirectory("baton-redis").resolve("redis-server");
			try (InputStream in = jar.getInputStream(entry)) {
				Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
			}
			if (!target.toFile().setExecutable(true)) {
				throw new IllegalStateException("Cannot make " + target + " executable");
			}
			// Deleted at exit in reverse order of registration: the binary, then its emptied directory.
			target.getParent().toFile().deleteOnExit();
			target.toFile().deleteOnExit();
			return target;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot extract redis-server from embedded-redis", ex);
		}
	}

	// Through the jar URL, so that it also works when embedded-redis is nested in an
	// application's executable jar; uncached, so that closing it does not close the class loader's.
	private static JarFile embeddedJar() throws IOException {
		URL resource = RedisBinary.class.getClassLoader().getResource(EMBEDDED_MARKER_CLASS);
		if (resource == null || !(resource.openConnection() instanceof JarURLConnection connection)) {
			throw new IllegalStateException("No redis-server on the PATH and com.github.codemonstur:embedded-redis "
					+ "is not on the class path; install one of them");
		}
		connection.setUseCaches(false);
		return connection.getJarFile();
	}

	private static String platformSuffix() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		String osPart = os.contains("mac") ? "darwin" : os.contains("linux") ? "linux" : null;
		String archPart = switch (arch) {
			case "amd64", "x86_64" -> "amd64";
			case "aarch64", "arm64" -> "arm64";
			default -> null;
		};
		if (osPart == null || archPart == null) {
			throw new IllegalStateException("No embedded redis-server for " + os + "/" + arch
					+ "; install redis-server on the PATH or set " + dev.baton.test.RedisServers.URL_VARIABLE);
		}
		return osPart + "-" + archPart;
	}

}
