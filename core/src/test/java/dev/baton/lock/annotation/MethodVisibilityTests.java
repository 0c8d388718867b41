package dev.baton.lock.annotation;

import java.time.Duration;

import dev.baton.lock.LockManager;
import dev.baton.lock.annotation.elsewhere.VisibleMethodsElsewhere;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

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

	@Test
	void aPackagePrivateMethodInheritedFromAnotherPackageIsReported() {
		DistributedLockAdvisor advisor = new DistributedLockAdvisor(() -> null, Duration.ZERO);
		advisor.setFailOnUnproxiedCalls(true);

		assertThat(advisor.getPointcut().getClassFilter().matches(VisibleMethods.class)).isTrue();
		assertThatIllegalStateException()
			.isThrownBy(() -> advisor.getPointcut().getClassFilter().matches(VisibleMethodsElsewhere.class))
			.withMessageContaining("VisibleMethodsElsewhere.packagePrivateMethod(LockManager) has no effect")
			.withMessageContaining("package-private in dev.baton.lock.annotation.VisibleMethods");
	}

	private static AnnotationConfigApplicationContext context(RedisServer server, Class<?> bean) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(LettuceConnectionFactory.class, () -> new LettuceConnectionFactory(server.host(), server.port()));
		context.register(LockingTestConfiguration.class, bean);
		context.refresh();
		return context;
	}

}
