package dev.baton.test;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * JUnit Jupiter extension behind {@link RedisTest}: starts the shared server before the first
 * test, empties it before each test (unless disabled), and resolves parameters of type
 * {@link RedisServer}, {@link RedisConnectionFactory} and {@link StringRedisTemplate}.
 */
public class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(RedisServerExtension.class);

	@Override
	public void beforeAll(ExtensionContext context) {
		connectionFactory(context);
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		RedisTest settings = AnnotatedElementUtils.findMergedAnnotation(context.getRequiredTestClass(),
				RedisTest.class);
		if (settings == null || settings.flushBeforeEach()) {
			try (RedisConnection connection = connectionFactory(context).getConnection()) {
				connection.serverCommands().flushDb();
			}
		}
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		Class<?> type = parameterContext.getParameter().getType();
		return type == RedisServer.class || type == RedisConnectionFactory.class
				|| type == LettuceConnectionFactory.class || type == StringRedisTemplate.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		Class<?> type = parameterContext.getParameter().getType();
		if (type == RedisServer.class) {
			return RedisServers.shared();
		}
		LettuceConnectionFactory connectionFactory = connectionFactory(extensionContext);
		if (type == StringRedisTemplate.class) {
			return new StringRedisTemplate(connectionFactory);
		}
		return connectionFactory;
	}

	private static LettuceConnectionFactory connectionFactory(ExtensionContext context) {
		return context.getRoot()
			.getStore(NAMESPACE)
			.computeIfAbsent(SharedConnectionFactory.class, (key) -> new SharedConnectionFactory(),
					SharedConnectionFactory.class)
			.factory();
	}

	/** One connection factory per test run, closed by JUnit when the run ends. */
	private record SharedConnectionFactory(LettuceConnectionFactory factory) implements AutoCloseable {

		SharedConnectionFactory() {
			this(create());
		}

		private static LettuceConnectionFactory create() {
			RedisServer server = RedisServers.shared();
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(server.host(), server.port()));
			factory.afterPropertiesSet();
			factory.start();
			return factory;
		}

		@Override
		public void close() {
			this.factory.destroy();
		}

	}

}
