package dev.baton.docs.withoutboot;

import dev.baton.lock.annotation.EnableDistributedLocks;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.annotation.EnableDelayedTasks;
import dev.baton.queue.redis.RedisDelayQueues;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** docs/getting-started.md, "Without Spring Boot", as the page shows it. */
@Configuration(proxyBeanMethods = false)
@EnableDistributedLocks
@EnableDelayedTasks
public class BatonConfiguration {

	@Bean
	RedisLockManager lockManager(RedisConnectionFactory connectionFactory) {
		return RedisLockManager.builder(connectionFactory).build();
	}

	@Bean
	RedisDelayQueues delayQueues(RedisConnectionFactory connectionFactory) {
		return RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
	}

}
