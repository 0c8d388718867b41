package dev.baton.autoconfigure.redis;

import dev.baton.internal.PrimarySwitchWatch;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Makes an application whose Redis is found through Sentinel (a {@link LettuceConnectionFactory}
 * with a Sentinel configuration) follow a switch of the primary at once: Baton's locks and queues, and everything else on the shared connection, write to the new
 * primary about a second after a failover instead of to the old one until it is demoted.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class, before = {
		dev.baton.autoconfigure.lock.BatonLockAutoConfiguration.class,
		dev.baton.autoconfigure.queue.BatonQueueAutoConfiguration.class })
@ConditionalOnClass({ PrimarySwitchWatch.class, LettuceConnectionFactory.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "baton.sentinel.follow-switches", matchIfMissing = true)
@EnableConfigurationProperties(BatonSentinelProperties.class)
public final class BatonPrimarySwitchAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PrimarySwitches batonPrimarySwitches(RedisConnectionFactory connectionFactory, BatonSentinelProperties properties) {
		return new PrimarySwitches(PrimarySwitchWatch.of(connectionFactory, properties.getFailoverHold()).orElse(null));
	}

}
