package dev.baton.lock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

import dev.baton.lock.LockManager;
import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The advisor that applies {@link DistributedLock @DistributedLock}. Register it as a bean with
 * an auto-proxy creator in the context: {@link EnableDistributedLocks @EnableDistributedLocks}
 * (or Spring Boot's auto-configuration) does both.
 *
 * <p>Each annotated method is parsed when its bean is proxied, at start-up, so that an invalid
 * key, duration or fallback method fails the application start with a message that names the
 * method. Its order defaults to {@code Ordered.LOWEST_PRECEDENCE - 1}, one step before the
 * transaction advisor's default, so that the lock is taken before a transaction on the same
 * method begins and released after it has committed or rolled back.
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor implements BeanFactoryAware {

	/** The default order: just outside {@code @Transactional} with its default order. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1;

	private final LockedMethods methods;

	private final DistributedLockInterceptor interceptor;

	private volatile @Nullable ObjectProvider<DistributedLockAdvisorCustomizer> customizers;

	private final Pointcut pointcut = new StaticMethodMatcherPointcut() {

		{
			// Parses every annotated method of a class when its bean is first considered, so that each
			// invalid or unproxyable one is reported at start-up, not only those the matcher reaches.
			setClassFilter((targetClass) -> {
				Class<?> userClass = ClassUtils.getUserClass(targetClass);
				Set<Method> annotated = new HashSet<>();
				ReflectionUtils.doWithMethods(userClass, (method) -> {
					DistributedLockAdvisor.this.methods.find(method, targetClass);
					if (method.getDeclaringClass() == userClass) {
						annotated.add(method);
					}
				}, (method) -> AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class));
				DistributedLockAdvisor.this.methods.checkSelfInvocations(userClass, annotated);
				return true;
			});
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return DistributedLockAdvisor.this.methods.find(method, targetClass) != null;
		}

	};

	/**
	 * Create the advisor.
	 * @param lockManager supplies the lock manager at the first locked call, so that the advisor
	 * can be created before it
	 * @param defaultWaitTime the wait time of annotations that do not set one
	 */
	public DistributedLockAdvisor(Supplier<LockManager> lockManager, Duration defaultWaitTime) {
		this.methods = new LockedMethods(defaultWaitTime);
		this.interceptor = new DistributedLockInterceptor(this.methods, lockManager);
		this.methods.beforeFirstParse(this::customize);
		setOrder(DEFAULT_ORDER);
	}

	/**
	 * The wait time of annotations that do not set one; {@link Duration#ZERO} tries once.
	 * @param defaultWaitTime the wait time, not negative
	 */
	public void setDefaultWaitTime(Duration defaultWaitTime) {
		Assert.isTrue(!defaultWaitTime.isNegative(), () -> "Default wait time must not be negative, was "
				+ defaultWaitTime);
		this.methods.setDefaultWaitTime(defaultWaitTime);
	}

	/**
	 * Customizers applied once, just before the advisor is first used: when the first
	 * {@code @DistributedLock} method is parsed or the advisor's order is first read. An
	 * auto-proxy creator creates advisors before most beans, so the customizers (and the beans
	 * they depend on, such as configuration properties) are resolved only then, when the
	 * context can create them fully post-processed.
	 * @param customizers the customizers, applied in their order
	 */
	public void setCustomizers(ObjectProvider<DistributedLockAdvisorCustomizer> customizers) {
		this.customizers = customizers;
	}

	private void customize() {
		if (this.customizers == null) {
			return;
		}
		synchronized (this) {
			ObjectProvider<DistributedLockAdvisorCustomizer> pending = this.customizers;
			if (pending == null) {
				return;
			}
			// cleared first: a customizer that reads the order must not apply the customizers again
			this.customizers = null;
			pending.orderedStream().forEach((customizer) -> customizer.customize(this));
		}
	}

	@Override
	public int getOrder() {
		customize();
		return super.getOrder();
	}

	/**
	 * The most elements a collection {@code key} may evaluate to; a call with more fails with an
	 * {@link IllegalArgumentException}. The default is 100.
	 * @param maxKeys the maximum, at least 1
	 */
	public void setMaxKeys(int maxKeys) {
		Assert.isTrue(maxKeys >= 1, () -> "Maximum number of lock keys must be at least 1, was " + maxKeys);
		this.methods.setMaxKeys(maxKeys);
	}

	/**
	 * Whether a {@code @DistributedLock} that a proxy cannot apply (on a private, static or final
	 * method, or called from inside its own class) fails start-up instead of logging a warning.
	 * The default is {@code false}.
	 * @param failOnUnproxiedCalls whether to fail
	 */
	public void setFailOnUnproxiedCalls(boolean failOnUnproxiedCalls) {
		this.methods.setFailOnUnproxiedCalls(failOnUnproxiedCalls);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.methods.setBeanFactory(beanFactory);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return this == other;
	}

	@Override
	public int hashCode() {
		return System.identityHashCode(this);
	}

}
