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
			Environment environment, ApplicationEventPublisher eventPublisher,
			ObjectProvider<RedisLockManagerBuilderCustomizer> customizers,
			ObjectProvider<PrimarySwitches> primarySwitches) {
		RedisLockManager.Builder builder = RedisLockManager.builder(connectionFactory)
			.lockLostListener(eventPublisher::publishEvent);
		new BatonLockConfigurer(properties, environment).configure(builder);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		RedisLockManager lockManager = builder.build();
		primarySwitches.ifAvailable((switches) -> switches.watch().ifPresent(lockManager::followPrimarySwitches));
		return lockManager;
	}

	// after lockManager, whose definition the condition must see
	@Bean
	@ConditionalOnBean(LockManagerStatus.class)
	LockManagerShutdown lockManagerShutdown(ObjectProvider<LockManagerStatus> lockManagers) {
		return new LockManagerShutdown(lockManagers);
	}

	/** The {@code baton.lock.*} settings of the {@code @DistributedLock} advisor, applied at its first use. */
	@Bean
	DistributedLockAdvisorCustomizer lockAdvisorPropertiesCustomizer(BatonLockProperties properties,
			Environment environment) {
		return new BatonLockConfigurer(properties, environment)::configure;
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
