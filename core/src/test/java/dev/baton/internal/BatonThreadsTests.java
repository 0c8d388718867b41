package dev.baton.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.core.task.VirtualThreadTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class BatonThreadsTests {

	private final List<Thread> made = new CopyOnWriteArrayList<>();

	/** Non-daemon threads with a name of the application's, as many factories make. */
	private final ThreadFactory applications = (task) -> {
		Thread thread = new Thread(task, "application-thread");
		this.made.add(thread);
		return thread;
	};

	@Test
	void batonsOwnThreadsAreNamedPlatformDaemons() throws Exception {
		Thread thread = BatonThreads.PLATFORM.start("baton-test", () -> {
		});
		thread.join(1000);

		assertThat(thread.getName()).isEqualTo("baton-test");
		assertThat(thread.isDaemon()).isTrue();
		assertThat(BatonThreads.isVirtual(thread)).isFalse();
		assertThat(BatonThreads.of(null)).isSameAs(BatonThreads.PLATFORM);
	}

	@Test
	void everyExecutorTakesItsThreadsFromTheFactoryNamedAndDaemon() throws Exception {
		BatonThreads threads = BatonThreads.of(this.applications);
		ExecutorService single = threads.singleThread("baton-single");
		ExecutorService scheduled = threads.scheduled("baton-scheduled");
		ExecutorService cached = threads.cached("baton-cached", Duration.ofSeconds(1));
		try {
			List<Thread> ran = new CopyOnWriteArrayList<>();
			for (ExecutorService executor : List.of(single, scheduled, cached)) {
				executor.submit(() -> ran.add(Thread.currentThread())).get(5, TimeUnit.SECONDS);
			}
			CompletableFuture.runAsync(() -> ran.add(Thread.currentThread()), threads.threadPerTask("baton-per-task"))
				.get(5, TimeUnit.SECONDS);
			Thread started = threads.start("baton-started", () -> {
			});
			started.join(1000);

			assertThat(ran).extracting(Thread::getName)
				.containsExactly("baton-single", "baton-scheduled", "baton-cached", "baton-per-task");
			assertThat(this.made).containsAll(ran).contains(started);
			assertThat(this.made).allSatisfy((thread) -> assertThat(thread.isDaemon()).isTrue());
		}
		finally {
			single.shutdownNow();
			scheduled.shutdownNow();
			cached.shutdownNow();
		}
	}

	@Test
	void platformKeepsThePlatformThreadsOfTheFactory() {
		Thread thread = BatonThreads.of(this.applications).platform().newThread("baton-timer", () -> {
		});

		assertThat(this.made).containsExactly(thread);
		assertThat(thread.getName()).isEqualTo("baton-timer");
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void platformReplacesTheVirtualThreadsOfTheFactory() {
		BatonThreads threads = BatonThreads.of(new VirtualThreadTaskExecutor("v-").getVirtualThreadFactory());

		Thread virtual = threads.newThread("baton-events", () -> {
		});
		Thread platform = threads.platform().newThread("baton-timer", () -> {
		});

		assertThat(BatonThreads.isVirtual(virtual)).isTrue();
		assertThat(virtual.getName()).isEqualTo("baton-events");
		assertThat(BatonThreads.isVirtual(platform)).isFalse();
		assertThat(platform.getName()).isEqualTo("baton-timer");
		assertThat(platform.isDaemon()).isTrue();
	}

	@Test
	void aFactoryThatMakesNoThreadRefusesToStartOne() {
		BatonThreads threads = BatonThreads.of((task) -> null);

		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> threads.start("baton-refused", () -> {
			}))
			.withMessageContaining("baton-refused");
	}

}
