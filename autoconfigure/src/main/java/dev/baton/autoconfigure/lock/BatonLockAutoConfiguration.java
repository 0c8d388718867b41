package dev.baton.autoconfigure.lock;

import dev.baton.autoconfigure.redis.PrimarySwitches;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockManagerStatus;
import dev.baton.lock.annotation.DistributedLockAdvisor;
import dev.baton.lock.annotation.DistributedLockAdvisorCustomizer;
import dev.baton.lock.annotation.DistributedLockConfiguration;
import dev.baton.lock.annotation.EnableDistributedLocks;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.observation.LockAcquisitionObservationConvention;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} for
 * Baton's distributed locks: a {@link LockManager} on the application's Redis connection, and
 * {@link dev.baton.lock.annotation.DistributedLock @DistributedLock} support.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass({ RedisLockManager.class, RedisConnectionFactory.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "baton.lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(BatonLockProperties.class)
@Import(BatonLockAutoConfiguration.AutoProxyRegistrar.class)
public final class BatonLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockManager.class)
	RedisLockManager lockManager(RedisConnectionFactory connectionFactory, BatonLockProperties properties,
			ApplicationEventPublisher eventPublisher, ObjectProvider<RedisLockManagerBuilderCustomizer> customizers,
			ObjectProvider<PrimarySwitches> primarySwitches) {
		RedisLockManager.Builder builder = RedisLockManager.builder(connectionFactory)
			.lockLostListener(eventPublisher::publishEvent);
		set("baton.lock.key-prefix", () -> builder.keyPrefix(properties.getKeyPrefix()));
		set("baton.lock.lease-time", () -> builder.leaseTime(properties.getLeaseTime()));
		set("baton.lock.command-timeout", () -> builder.commandTimeout(properties.getCommandTimeout()));
		set("baton.lock.max-name-length", () -> builder.maxNameLength(properties.getMaxNameLength()));
		set("baton.lock.max-metric-groups", () -> builder.maxMetricGroups(properties.getMaxMetricGroups()));
		String instanceName = properties.getInstanceName();
		if (instanceName != null) {
			set("baton.lock.instance-name", () -> builder.instanceName(instanceName));
		}
		set("baton.lock.replica-acknowledgement",
				() -> builder.replicaAcknowledgement(properties.getReplicaAcknowledgement().getReplicas(),
						properties.getReplicaAcknowledgement().getTimeout()));
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		RedisLockManager lockManager = builder.build();
		primarySwitches.ifAvailable((switches) -> switches.watch().ifPresent(lockManager::followPrimarySwitches));
		return lockManager;
	}

	/** Applies one setting, naming its property if the builder refuses the value. */
	private static void set(String property, Runnable setting) {
		try {
			setting.run();
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Invalid " + property + ": " + ex.getMessage(), ex);
		}
	}

	// after lockManager, whose definition the condition must see
	@Bean
	@ConditionalOnBean(LockManagerStatus.class)
	LockManagerShutdown lockManagerShutdown(ObjectProvider<LockManagerStatus> lockManagers) {
		return new LockManagerShutdown(lockManagers);
	}

	/**
	 * The {@code baton.lock.*} settings of the {@code @DistributedLock} advisor, applied at its
	 * first use. The order and fail-on-unproxied-calls are applied only when set, so that the
	 * attributes of an application's own {@code @EnableDistributedLocks} otherwise stay.
	 */
	@Bean
	DistributedLockAdvisorCustomizer lockAdvisorPropertiesCustomizer(BatonLockProperties properties,
			Environment environment) {
		return (advisor) -> {
			set("baton.lock.wait-time", () -> advisor.setDefaultWaitTime(properties.getWaitTime()));
			set("baton.lock.max-keys", () -> advisor.setMaxKeys(properties.getMaxKeys()));
			Binder binder = Binder.get(environment);
			if (binder.bind("baton.lock.aspect-order", String.class).isBound()) {
				advisor.setOrder(properties.getAspectOrder());
			}
			if (binder.bind("baton.lock.fail-on-unproxied-calls", String.class).isBound()) {
				advisor.setFailOnUnproxiedCalls(properties.isFailOnUnproxiedCalls());
			}
		};
	}

	/**
	 * Acquisitions observed in the application's {@link ObservationRegistry} (its meter handler
	 * records the {@code baton.lock.acquire} timer), named by the application's convention if it
	 * declares one.
	 */
	@Bean
	RedisLockManagerBuilderCustomizer lockObservationCustomizer(ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<LockAcquisitionObservationConvention> convention) {
		return (builder) -> {
			observationRegistry.ifUnique(builder::observationRegistry);
			convention.ifUnique(builder::acquisitionObservationConvention);
		};
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class LockMetricsConfiguration {

		@Bean
		RedisLockManagerBuilderCustomizer lockMetricsCustomizer(ObjectProvider<MeterRegistry> meterRegistry) {
			return (builder) -> meterRegistry.ifAvailable(builder::meterRegistry);
		}

	}

	/**
	 * Switches {@code @DistributedLock} on unless the application has done so itself or
	 * declares its own advisor.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(name = DistributedLockConfiguration.ADVISOR_BEAN_NAME,
			value = DistributedLockAdvisor.class)
	@EnableDistributedLocks
	static class EnableDistributedLocksConfiguration {

	}

	/**
	 * Makes sure an auto-proxy creator applies the lock advisor, also without Spring Boot's AOP
	 * support and when the application declares its own advisor.
	 */
	static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
