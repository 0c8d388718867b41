package dev.baton.queue.listener;

import java.time.Duration;

import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.ChildJvm;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A consumer instance in a child JVM: {@code ConsumerMain <redis-url> <consumer-name>
 * <handle-millis>}. Consumes the {@code jobs} queue with {@link JobHandler} until the process is
 * stopped (gracefully on SIGTERM, or killed), and says it is ready with a Redis key.
 */
final class ConsumerMain {

	private ConsumerMain() {
	}

	public static void main(String[] args) throws Exception {
		String consumer = args[1];
		Duration handleTime = Duration.ofMillis(Long.parseLong(args[2]));
		LettuceConnectionFactory connectionFactory = ChildJvm.connectionFactory(args[0]);
		StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
		RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build()).build();
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBean(DelayedTaskAnnotationBeanPostProcessor.class);
		context.registerBean(DelayedTaskListenerRegistry.class,
				() -> DelayedTaskListenerRegistry.builder(queues).build());
		context.registerBean(JobHandler.class, () -> new JobHandler(redis, consumer, handleTime));
		context.refresh();
		context.registerShutdownHook();
		redis.opsForValue().set("test:ready:" + consumer, "1");
		Thread.currentThread().join();
	}

}
