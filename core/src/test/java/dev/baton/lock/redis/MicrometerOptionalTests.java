package dev.baton.lock.redis;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Function;

import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@RedisTest
class MicrometerOptionalTests {

	@Test
	void locksWithoutMicrometerOnTheClasspath(RedisServer server) throws Exception {
		URL[] withoutMicrometerCore = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.contains("micrometer-core"))
			.map(MicrometerOptionalTests::toUrl)
			.toArray(URL[]::new);
		// Lettuce's flight recorder events cannot be defined twice in one JVM under different loaders
		String jfr = System.setProperty("io.lettuce.core.jfr", "false");
		try (URLClassLoader classLoader = new URLClassLoader(withoutMicrometerCore,
				ClassLoader.getPlatformClassLoader())) {
			assertThatExceptionOfType(ClassNotFoundException.class)
				.isThrownBy(() -> classLoader.loadClass("io.micrometer.core.instrument.MeterRegistry"));
			@SuppressWarnings("unchecked")
			Function<String, Long> locking = (Function<String, Long>) classLoader
				.loadClass(MicrometerFreeLocking.class.getName())
				.getDeclaredConstructor()
				.newInstance();

			assertThat(locking.apply(server.url())).isPositive();
		}
		finally {
			if (jfr != null) {
				System.setProperty("io.lettuce.core.jfr", jfr);
			}
			else {
				System.clearProperty("io.lettuce.core.jfr");
			}
		}
	}

	private static URL toUrl(String classPathEntry) {
		try {
			return Path.of(classPathEntry).toUri().toURL();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
