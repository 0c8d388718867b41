package dev.baton.autoconfigure.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Caps the delay between Lettuce's reconnect attempts ({@code baton.redis.max-reconnect-delay}).
 * Baton's bounds (a lease extended, a handler told its task was taken, health UP again) count from
 * when Redis answers again, and a client that waits up to 30 s before its next attempt would add
 * that wait to each of them.
 */
@AutoConfiguration(before = DataRedisAutoConfiguration.class)
@ConditionalOnClass({ ClientResources.class, ClientResourcesBuilderCustomizer.class })
@EnableConfigurationProperties(BatonRedisProperties.class)
public final class BatonReconnectAutoConfiguration {

	@Bean
	ClientResourcesBuilderCustomizer batonReconnectDelay(BatonRedisProperties properties) {
		Duration max = properties.getMaxReconnectDelay();
		if (max.isNegative() || max.isZero()) {
			throw new IllegalArgumentException("baton.redis.max-reconnect-delay must be positive, was " + max);
		}
		// Lettuce's default shape (doubling from 1 ms), with a lower ceiling.
		return (builder) -> builder.reconnectDelay(Delay.exponential(Duration.ZERO, max, 2, TimeUnit.MILLISECONDS));
	}

}
