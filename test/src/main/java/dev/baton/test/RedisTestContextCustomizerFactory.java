package dev.baton.test;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Points {@code spring.data.redis.*} at the shared test server for Spring tests annotated with
 * {@link RedisTest}. Registered in {@code META-INF/spring.factories}. The server wins over
 * application configuration files; properties set on the test itself still win over the server.
 */
class RedisTestContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		return TestContextAnnotationUtils.hasAnnotation(testClass, RedisTest.class) ? new RedisProperties() : null;
	}

	private static final String INLINED_TEST_PROPERTIES = "Inlined Test Properties";

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
		}

	}

}
