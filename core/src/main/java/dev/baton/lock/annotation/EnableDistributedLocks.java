package dev.baton.lock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Switches on {@link DistributedLock @DistributedLock} in an application without Spring Boot:
 * registers the {@link DistributedLockAdvisor} under
 * {@value DistributedLockConfiguration#ADVISOR_BEAN_NAME} and an auto-proxy creator, if the
 * context has none. Put it on a {@code @Configuration} class that also declares the
 * {@link dev.baton.lock.LockManager LockManager} bean, for example
 * {@code RedisLockManager.builder(connectionFactory).build()}; the advisor looks it up at the
 * first locked call.
 *
 * <p>The defaults that the attributes do not cover (the default wait time, the maximum number of
 * keys) are set by {@link DistributedLockAdvisorCustomizer} beans. Spring Boot's
 * auto-configuration applies this annotation itself unless the application does, and then
 * applies the {@code baton.lock.*} properties that are set over these attributes.
 *
 * <p>The lock advice runs outside {@code @Transactional} by default (see {@link #order()}), so
 * that a transaction on a locked method commits or rolls back before the lock is released.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import({ DistributedLockConfiguration.class, DistributedLockProxyRegistrar.class })
public @interface EnableDistributedLocks {

	/**
	 * Whether the auto-proxy creator proxies classes with CGLIB rather than their interfaces with
	 * JDK proxies. {@code true} switches class proxies on for every bean the context's auto-proxy
	 * creator handles, as with {@code @EnableTransactionManagement}; {@code false} leaves the
	 * creator as it is. The default is {@code false}.
	 * @return whether to proxy target classes
	 */
	boolean proxyTargetClass() default false;

	/**
	 * The order of the lock advice among the advisors of a method. The default is
	 * {@link DistributedLockAdvisor#DEFAULT_ORDER}, one step before {@code @Transactional}'s
	 * default order, so that the lock is taken before the transaction begins. If you give
	 * {@code @EnableTransactionManagement} an order, keep this one lower.
	 * @return the order
	 */
	int order() default DistributedLockAdvisor.DEFAULT_ORDER;

	/**
	 * Whether a {@code @DistributedLock} that a proxy cannot apply (on a private, static or final
	 * method, or called from inside its own class) fails start-up instead of logging a warning.
	 * The default is {@code false}.
	 * @return whether to fail
	 */
	boolean failOnUnproxiedCalls() default false;

}
