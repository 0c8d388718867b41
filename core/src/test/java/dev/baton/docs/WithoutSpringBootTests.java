package dev.baton.docs;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.baton.docs.withoutboot.BatonConfiguration;
import dev.baton.docs.withoutboot.LockDefaultsConfiguration;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.annotation.DistributedLock;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The configuration of docs/getting-started.md, "Without Spring Boot", runs as the page shows it. */
@RedisTest
class WithoutSpringBootTests {

	@Test
	void locksWithThePagesDefaultWaitTimeAndHandlesTasks(RedisServer server) {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.registerBean(LettuceConnectionFactory.class,
					() -> new LettuceConnectionFactory(server.host(), server.port()));
			context.register(BatonConfiguration.class, LockDefaultsConfiguration.class, Settlement.class, Notes.class);
			context.refresh();

			LockLease held = context.getBean(LockManager.class)
				.tryAcquire("docs-settlement", Duration.ZERO)
				.orElseThrow();
			ScheduledExecutorService releaser = Executors.newSingleThreadScheduledExecutor();
			try {
				Runnable release = held::release;
				releaser.schedule(release, 300, TimeUnit.MILLISECONDS);
				// waits up to the page's 2 s default instead of failing at once
				assertThat(context.getBean(Settlement.class).settle()).isEqualTo("settled");
			}
			finally {
				releaser.shutdown();
			}

			String id = "docs-" + System.nanoTime();
			context.getBean(DelayQueues.class).get("docs-notes", String.class).schedule(id, "hello", Duration.ZERO);
			await().atMost(Duration.ofSeconds(15)).until(() -> context.getBean(Notes.class).received.contains("hello"));
		}
	}

	public static class Settlement {

		@DistributedLock(name = "docs-settlement")
		public String settle() {
			return "settled";
		}

	}

	public static class Notes {

		final List<String> received = new CopyOnWriteArrayList<>();

		@DelayedTask(queue = "docs-notes")
		public void note(String text) {
			this.received.add(text);
		}

	}

}
