package dev.baton.autoconfigure.actuate;

import java.time.Duration;

import org.springframework.boot.actuate.autoconfigure.info.ConditionalOnEnabledInfoContributor;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of
 * the {@code baton} info contributor: Baton's version, and the Redis server's version and mode
 * with {@code management.info.baton.redis.enabled=true}. Turned off with
 * {@code management.info.baton.enabled=false}.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass({ InfoContributor.class, RedisConnectionFactory.class })
@EnableConfigurationProperties(BatonInfoProperties.class)
public final class BatonInfoContributorAutoConfiguration {

	/** How long the info endpoint waits for Redis before it reports an error instead. */
	private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(1);

	// actuator conditions on the method: they are read only once InfoContributor is known to be present
	@Bean
	@ConditionalOnEnabledInfoContributor("baton")
	@ConditionalOnMissingBean(name = "batonInfoContributor")
	@ConditionalOnBean(RedisConnectionFactory.class)
	InfoContributor batonInfoContributor(RedisConnectionFactory redisConnectionFactory,
			BatonInfoProperties properties) {
		return new BatonInfoContributor(properties.getRedis().isEnabled()
				? new RedisServerInfo(redisConnectionFactory, REDIS_TIMEOUT) : null);
	}

}
