package dev.baton.lock.annotation;

import dev.baton.lock.LockManager;
import dev.baton.lock.annotation.elsewhere.VisibleMethodsElsewhere;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What docs/locks.md says a proxy can lock: public, protected and package-private methods of the
 * bean's class, but not a package-private method that a class of another package inherits.
 */
@RedisTest
class MethodVisibilityTests {

	@Test
	void publicProtectedAndPackagePrivateMethodsAreLocked(RedisServer server) {
		try (AnnotationConfigApplicationContext context = context(server, VisibleMethods.class)) {
			VisibleMethods bean = context.getBean(VisibleMethods.class);
			LockManager locks = context.getBean(LockManager.class);
			assertThat(bean.publicMethod(locks)).as("public").isTrue();
			assertThat(bean.protectedMethod(locks)).as("protected").isTrue();
			assertThat(bean.packagePrivateMethod(locks)).as("package-private").isTrue();
		}
	}

	@Test
	void aPackagePrivateMethodInheritedFromAnotherPackageIsNotLocked(RedisServer server) {
		try (AnnotationConfigApplicationContext context = context(server, VisibleMethodsElsewhere.class)) {
			VisibleMethods bean = context.getBean(VisibleMethodsElsewhere.class);
			LockManager locks = context.getBean(LockManager.class);
			assertThat(bean.publicMethod(locks)).as("public").isTrue();
			assertThat(bean.packagePrivateMethod(locks)).as("package-private, inherited from another package").isFalse();
		}
	}

	private static AnnotationConfigApplicationContext context(RedisServer server, Class<?> bean) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(LettuceConnectionFactory.class, () -> new LettuceConnectionFactory(server.host(), server.port()));
		context.register(LockingTestConfiguration.class, bean);
		context.refresh();
		return context;
	}

}
