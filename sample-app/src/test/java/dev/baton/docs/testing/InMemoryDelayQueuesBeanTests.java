package dev.baton.docs.testing;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import dev.baton.autoconfigure.queue.BatonQueueAutoConfiguration;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.queue.InMemoryDelayQueues;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * docs/testing.md: an InMemoryDelayQueues bean replaces the Redis queues, and the auto-configured
 * listener registry runs @DelayedTask handlers on it.
 */
class InMemoryDelayQueuesBeanTests {

	@Test
	void delayedTaskHandlersConsumeAnInMemoryDelayQueuesBean() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(BatonQueueAutoConfiguration.class))
			.withBean(InMemoryDelayQueues.class, InMemoryDelayQueues::new)
			.withBean(Reminders.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(DelayQueues.class);
				@SuppressWarnings("unchecked")
				DelayQueue<String> reminders = (DelayQueue<String>) context
					.getBeanProvider(ResolvableType.forClassWithGenerics(DelayQueue.class, String.class))
					.getObject();
				reminders.schedule("renewal", "renew the lease", Duration.ofDays(7));

				context.getBean(InMemoryDelayQueues.class).advance(Duration.ofDays(7));
				await().pollInterval(Duration.ofMillis(5))
					.until(() -> context.getBean(Reminders.class).sent.contains("renew the lease"));
			});
	}

	static class Reminders {

		final Queue<String> sent = new ConcurrentLinkedQueue<>();

		@DelayedTask(queue = "reminders")
		void send(String text) {
			this.sent.add(text);
		}

	}

}
