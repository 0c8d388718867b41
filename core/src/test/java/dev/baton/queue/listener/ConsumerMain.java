package dev.baton.queue.listener;

import java.time.Duration;

import dev.baton.queue.annotation.DelayedTaskAnnotationBeanPostProcessor;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.support.ChildJvm;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A consumer instance in a child JVM: {@code ConsumerMain <redis-url> <consumer-name>
 * <handle-millis> [<max-deliveries>]}. Consumes the {@code jobs} queue with {@link JobHandler}
 * until the process is stopped (gracefully on SIGTERM, or killed), and says it is ready with a
 * Redis key. With a max-deliveries, it runs with one attempt and that delivery limit, and a task
 * whose payload is {@link JobHandler#HALT} halts the JVM, as an OOM or System.exit would.
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
		boolean crashing = args.length > 3;
		ListenerSettings defaults = ListenerSettings.DEFAULTS;
		ListenerSettings settings = crashing ? new ListenerSettings(1, defaults.backoff(), defaults.visibilityTimeout(),
				defaults.batchSize(), defaults.prefetch(), defaults.claimAhead(), defaults.maxIdlePoll(),
				defaults.shutdownTimeout(), Integer.parseInt(args[3])) : defaults;
		context.registerBean(DelayedTaskListenerRegistry.class,
				() -> DelayedTaskListenerRegistry.builder(queues).settings((queue) -> settings).build());
		context.registerBean(JobHandler.class, () -> new JobHandler(redis, consumer, handleTime, crashing));
		context.refresh();
		context.registerShutdownHook();
		redis.opsForValue().set("test:ready:" + consumer, "1");
		Thread.currentThread().join();
	}

}
