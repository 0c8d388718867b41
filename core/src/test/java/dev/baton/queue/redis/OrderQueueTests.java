package dev.baton.queue.redis;

import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/** Tests of one queue, {@code orders}, on a real Redis: a fresh queue per test. */
@RedisTest
abstract class OrderQueueTests {

	RedisDelayQueues queues;

	RedisDelayQueue<Order> queue;

	@BeforeEach
	@SuppressWarnings("unchecked")
	void createQueue(RedisConnectionFactory connectionFactory) {
		this.queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
		this.queue = (RedisDelayQueue<Order>) this.queues.get("orders", Order.class);
	}

	@AfterEach
	void closeQueues() {
		this.queues.close();
	}

}
