package dev.baton.autoconfigure.queue;

import dev.baton.queue.DelayQueues;
import dev.baton.queue.redis.RedisDelayQueues;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configuration of delay queues on Redis ({@link DelayQueues} and a {@code DelayQueue<T>}
 * bean per known queue) and of the listener containers that run {@code @DelayedTask} handlers.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class },
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass({ RedisDelayQueues.class, RedisConnectionFactory.class, JsonMapper.class })
@ConditionalOnBooleanProperty(name = "baton.queue.enabled", matchIfMissing = true)
@EnableConfigurationProperties(BatonQueueProperties.class)
// In this order: the listener configuration's conditions look for the DelayQueues bean.
@Import({ DelayQueuesConfiguration.class, DelayedTaskListenerConfiguration.class })
public final class BatonQueueAutoConfiguration {

	@Bean
	@ConditionalOnBean(RedisConnectionFactory.class)
	EvictionPolicyCheck batonEvictionPolicyCheck(RedisConnectionFactory connectionFactory) {
		return new EvictionPolicyCheck(connectionFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	static DelayQueueBeanRegistrar delayQueueBeanRegistrar() {
		return new DelayQueueBeanRegistrar();
	}

}
