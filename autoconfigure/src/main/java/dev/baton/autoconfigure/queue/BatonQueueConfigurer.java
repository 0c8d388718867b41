package dev.baton.autoconfigure.queue;

import java.time.Duration;

import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import dev.baton.queue.redis.RedisDelayQueues;

import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.thread.Threading;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * Applies {@code baton.queue.*} to what {@link BatonQueueAutoConfiguration} builds: the delay
 * queues' builder and the {@code @DelayedTask} listener registry's, with Spring Boot's virtual
 * threads and shutdown phase timeout. Each queue's own settings are resolved by
 * {@link QueueSettings} when the queue is first used.
 */
final class BatonQueueConfigurer {

	/** Spring Boot's default of {@code spring.lifecycle.timeout-per-shutdown-phase}. */
	private static final Duration BOOT_SHUTDOWN_PHASE_TIMEOUT = Duration.ofSeconds(30);

	private final BatonQueueProperties properties;

	private final QueueSettings settings;

	private final Environment environment;

	BatonQueueConfigurer(BatonQueueProperties properties, Environment environment) {
		this.properties = properties;
		this.settings = new QueueSettings(properties);
		this.environment = environment;
	}

	void configure(RedisDelayQueues.Builder builder) {
		PropertyMapper map = PropertyMapper.get();
		map.from(this.properties::getKeyPrefix).to(builder::keyPrefix);
		map.from(this.settings::defaultVisibilityTimeout).to(builder::visibilityTimeout);
		map.from(this.properties::getCommandTimeout).to(builder::commandTimeout);
		map.from(this.settings::maxPayloadSize).to(builder::maxPayloadSize);
		map.from(this.settings::storageFormat).to(builder::storageFormat);
		builder.deadLetterRetention(this.settings::deadLetterRetention)
			.strictPayloads(this.settings::strictPayloads)
			.partitions(this.settings::partitions);
		if (Threading.VIRTUAL.isActive(this.environment)) {
			// The threads that open connections still are platform threads: the builder keeps them off virtual ones.
			builder.threadFactory(new VirtualThreadTaskExecutor("baton-").getVirtualThreadFactory());
		}
	}

	void configure(DelayedTaskListenerRegistry.Builder builder) {
		PropertyMapper map = PropertyMapper.get();
		map.from(Threading.VIRTUAL.isActive(this.environment)).to(builder::virtualThreads);
		if (Threading.VIRTUAL.isActive(this.environment)) {
			// The visibility timer still runs on a platform thread: the registry keeps it off virtual ones.
			builder.threadFactory(new VirtualThreadTaskExecutor("baton-").getVirtualThreadFactory());
		}
		map.from(Binder.get(this.environment)
			.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
			.orElse(BOOT_SHUTDOWN_PHASE_TIMEOUT)).to(builder::shutdownPhaseTimeout);
		builder.settings(this.settings::settings).concurrency(this.settings::concurrency);
	}

}
