package dev.baton.test;

import java.util.List;
import java.util.Map;

import dev.baton.test.internal.TestRedisConnectionDetails;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Points Spring tests annotated with {@link RedisTest} at the shared test server. Registered in
 * {@code META-INF/spring.factories}. With Spring Boot, the server is registered as the
 * application's {@code DataRedisConnectionDetails}, as {@code @ServiceConnection} does, so it wins
 * over every {@code spring.data.redis.*} way of naming a server (url, host and port, sentinel,
 * cluster). {@code spring.data.redis.host} and {@code port} point at it too, for configuration
 * that reads them directly; properties set on the test itself still win over those.
 */
class RedisTestContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		return TestContextAnnotationUtils.hasAnnotation(testClass, RedisTest.class) ? new RedisProperties() : null;
	}

	private static final String INLINED_TEST_PROPERTIES = "Inlined Test Properties";

	private static final boolean BOOT_DATA_REDIS_PRESENT = ClassUtils.isPresent(
			"org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails",
			RedisTestContextCustomizerFactory.class.getClassLoader());

	/** Equal to every other instance, so that contexts differing only by it are shared. */
	private record RedisProperties() implements ContextCustomizer {

		@Override
		public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
			RedisServer server = RedisServers.shared();
			MutablePropertySources sources = context.getEnvironment().getPropertySources();
			MapPropertySource redis = new MapPropertySource("batonTestRedis",
					Map.of("spring.data.redis.host", server.host(), "spring.data.redis.port", server.port()));
			if (sources.contains(INLINED_TEST_PROPERTIES)) {
				sources.addAfter(INLINED_TEST_PROPERTIES, redis);
			}
			else {
				sources.addFirst(redis);
			}
			if (BOOT_DATA_REDIS_PRESENT) {
				context.getBeanFactory()
					.registerSingleton("batonTestRedisConnectionDetails", new TestRedisConnectionDetails(server));
			}
		}

	}

}
