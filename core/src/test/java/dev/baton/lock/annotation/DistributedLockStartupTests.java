package dev.baton.lock.annotation;

import java.util.Map;

import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** Invalid {@code @DistributedLock} attributes fail the start, naming the method. */
@RedisTest
class DistributedLockStartupTests {

	@Test
	void invalidKeyExpression(RedisServer server) {
		assertStartFails(server, BadSpel.class, "BadSpel.run(long)", "'#id +'", "not valid SpEL");
	}

	@Test
	void unknownParameterName(RedisServer server) {
		assertStartFails(server, UnknownParameter.class, "UnknownParameter.run(long)", "'#orderid'", "[orderId, p0, a0]");
	}

	@Test
	void unknownBean(RedisServer server) {
		assertStartFails(server, UnknownBean.class, "UnknownBean.run(long)", "'@tenants'");
	}

	@Test
	void badDuration(RedisServer server) {
		assertStartFails(server, BadDuration.class, "BadDuration.run()", "waitTime", "'5 parsecs' is not a duration");
	}

	@Test
	void unresolvablePlaceholder(RedisServer server) {
		assertStartFails(server, MissingPlaceholder.class, "MissingPlaceholder.run()", "leaseTime",
				"app.lease-time");
	}

	@Test
	void missingFallbackMethod(RedisServer server) {
		assertStartFails(server, MissingFallback.class, "MissingFallback.run(String)", "fallbackMethod 'orElse'",
				"not found");
	}

	@Test
	void skipOnAPrimitiveResult(RedisServer server) {
		assertStartFails(server, SkipPrimitive.class, "SkipPrimitive.count()", "SKIP", "int");
	}

	@Test
	void validMethodsStart(RedisServer server) {
		try (AnnotationConfigApplicationContext context = context(server, LockedService.class)) {
			assertThat(context.getBean(LockedService.class).pay(1)).isEqualTo("paid 1");
		}
	}

	private static void assertStartFails(RedisServer server, Class<?> bean, String... messageParts) {
		assertThatException().isThrownBy(() -> context(server, bean).close())
			.satisfies((ex) -> assertThat(rootMessage(ex)).contains(messageParts));
	}

	private static AnnotationConfigApplicationContext context(RedisServer server, Class<?> bean) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("test", Map.of("app.wait", "2s")));
		context.registerBean(LettuceConnectionFactory.class,
				() -> new LettuceConnectionFactory(server.host(), server.port()));
		context.register(LockingTestConfiguration.class, bean);
		context.refresh();
		return context;
	}

	private static String rootMessage(Throwable ex) {
		Throwable cause = ex;
		while (cause.getCause() != null && !(cause instanceof IllegalStateException)) {
			cause = cause.getCause();
		}
		return cause.getMessage();
	}

	public static class BadSpel {

		@DistributedLock(key = "#id +")
		public void run(long id) {
		}

	}

	public static class UnknownParameter {

		@DistributedLock(key = "#orderid")
		public void run(long orderId) {
		}

	}

	public static class UnknownBean {

		@DistributedLock(key = "@tenants.current() + #id")
		public void run(long id) {
		}

	}

	public static class BadDuration {

		@DistributedLock(waitTime = "5 parsecs")
		public void run() {
		}

	}

	public static class MissingPlaceholder {

		@DistributedLock(waitTime = "${app.wait}", leaseTime = "${app.lease-time}")
		public void run() {
		}

	}

	public static class MissingFallback {

		@DistributedLock(fallbackMethod = "orElse")
		public String run(String id) {
			return id;
		}

		public String orElse(long id) {
			return "other parameters";
		}

	}

	public static class SkipPrimitive {

		@DistributedLock(onFailure = OnLockFailure.SKIP)
		public int count() {
			return 1;
		}

	}

}
