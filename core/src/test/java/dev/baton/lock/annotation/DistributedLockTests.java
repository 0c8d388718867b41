package dev.baton.lock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockNotAcquiredException;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@RedisTest
class DistributedLockTests {

	private AnnotationConfigApplicationContext context;

	private StringRedisTemplate redis;

	private LockedService service;

	private LockManager locks;

	@BeforeEach
	void start(RedisServer server, StringRedisTemplate redis) {
		this.redis = redis;
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(LettuceConnectionFactory.class,
				() -> new LettuceConnectionFactory(server.host(), server.port()));
		this.context.register(LockingTestConfiguration.class, LockedService.class);
		this.context.refresh();
		this.service = this.context.getBean(LockedService.class);
		this.locks = this.context.getBean(LockManager.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void flashSaleSellsExactlyTheStockToConcurrentBuyers() throws Exception {
		FlashSale sale = this.context.getBean(FlashSale.class);
		sale.stock("phone", 10);
		ExecutorService buyers = Executors.newFixedThreadPool(16);
		List<Future<Boolean>> bought = new ArrayList<>();
		for (int buyer = 0; buyer < 200; buyer++) {
			int id = buyer;
			bought.add(buyers.submit(() -> sale.buy("phone", id)));
		}
		int successes = 0;
		for (Future<Boolean> result : bought) {
			successes += result.get(60, TimeUnit.SECONDS) ? 1 : 0;
		}
		buyers.shutdown();

		assertThat(successes).isEqualTo(10);
		assertThat(sale.sold("phone")).isEqualTo(10);
		assertThat(sale.units("phone")).isZero();
	}

	@Test
	void lockIsTakenBeforeTheTransactionBeginsAndReleasedAfterItCompletes() {
		FlashSale sale = this.context.getBean(FlashSale.class);
		LockObserver observer = this.context.getBean(LockObserver.class);
		observer.watch("baton:lock:{sale:tv}");

		sale.buyObservingTheLock("tv");

		assertThat(observer.seen()).containsExactly("transaction begins: locked", "in method: locked",
				"after completion: locked");
		assertThat(this.redis.hasKey("baton:lock:{sale:tv}")).isFalse();
	}

	@Test
	void throwsNamingTheLockWhenItIsTaken() {
		LockLease held = this.locks.tryAcquire("LockedService.pay:42", Duration.ZERO).orElseThrow();

		assertThatThrownBy(() -> this.service.pay(42)).isInstanceOf(LockNotAcquiredException.class)
			.hasMessageContaining("LockedService.pay:42")
			.hasMessageEndingWith("; held by instance '" + this.locks.holderOf("LockedService.pay:42").orElseThrow() + "'");
		assertThat(this.service.pay(43)).isEqualTo("paid 43");
		assertThat(this.service.calls()).isEqualTo(1);
		held.release();
		assertThat(this.service.pay(42)).isEqualTo("paid 42");
	}

	@Test
	void skipsWithAnEmptyResultOrCallsTheFallback() {
		LockLease held = this.locks.tryAcquire("report", Duration.ZERO).orElseThrow();

		this.service.report();
		assertThat(this.service.calls()).isZero();
		assertThat(this.service.reportOptional()).isEmpty();
		assertThat(this.service.reportList()).isEmpty();
		assertThat(this.service.reportOrFallback("ann")).isEqualTo("busy, sorry ann");

		held.release();
		assertThat(this.service.reportOptional()).contains("ran");
		assertThat(this.service.reportOrFallback("ann")).isEqualTo("ran for ann");
	}

	@Test
	void locksEveryElementOfACollectionKeyAllOrNone() {
		LockLease held = this.locks.tryAcquire("stock:b", Duration.ZERO).orElseThrow();

		assertThatThrownBy(() -> this.service.reserve(Set.of("c", "a", "b"))).isInstanceOf(LockNotAcquiredException.class)
			.hasMessageContaining("stock:b");
		assertThat(this.redis.keys("baton:lock:{stock:*}")).containsExactly("baton:lock:{stock:b}");

		held.release();
		List<String> lockedInside = new ArrayList<>();
		this.service.onInside(() -> lockedInside.addAll(this.redis.keys("baton:lock:{stock:*}")));
		this.service.reserveOrder(new LockedService.Order("o1", List.of("c", "a", "b")));
		assertThat(lockedInside).containsExactlyInAnyOrder("baton:lock:{stock:a}", "baton:lock:{stock:b}",
				"baton:lock:{stock:c}");
		assertThat(this.redis.keys("baton:lock:{stock:?}")).isEmpty();
	}

	@Test
	void aNestedCallOnTheSameLockReentersOnTheSameThreadAndExcludesOthers() {
		AtomicReference<@Nullable String> nested = new AtomicReference<>();
		AtomicReference<@Nullable Throwable> otherThread = new AtomicReference<>();
		AtomicBoolean once = new AtomicBoolean();
		this.service.onInside(() -> {
			if (once.compareAndSet(false, true)) {
				nested.set(this.service.pay(42));
				otherThread.set(CompletableFuture.runAsync(() -> this.service.pay(42))
					.handle((ignored, failure) -> failure)
					.join());
			}
		});

		assertThat(this.service.pay(42)).isEqualTo("paid 42");
		assertThat(nested.get()).isEqualTo("paid 42");
		assertThat(otherThread.get()).hasCauseInstanceOf(LockNotAcquiredException.class);
		assertThat(this.service.calls()).isEqualTo(2);
		assertThat(this.redis.keys("baton:lock:*")).isEmpty();
	}

	@Test
	void skippedCallsAreLoggedOnceAMinuteAtInfoAndEachAtDebug() {
		Logger logger = (Logger) LoggerFactory.getLogger("dev.baton.lock.annotation.LockFailureResult");
		ListAppender<ILoggingEvent> log = new ListAppender<>();
		log.start();
		logger.addAppender(log);
		Level level = logger.getLevel();
		logger.setLevel(Level.DEBUG);
		LockLease held = this.locks.tryAcquire("report", Duration.ZERO).orElseThrow();
		try {
			this.service.report();
			this.service.report();
		}
		finally {
			held.release();
			logger.detachAppender(log);
			logger.setLevel(level);
		}
		assertThat(this.service.calls()).isZero();
		assertThat(log.list).extracting(ILoggingEvent::getLevel).containsExactly(Level.INFO, Level.DEBUG);
		assertThat(log.list.get(0).getFormattedMessage()).contains("Skipped LockedService.report()")
			.contains("'report'")
			.contains("; held by instance '");
	}

	@Test
	void aCollectionKeyWithOneBadElementFailsBeforeAnyLockIsTried() {
		// Were "stock:a" tried first, the call would end in LockNotAcquiredException.
		LockLease held = this.locks.tryAcquire("stock:a", Duration.ZERO).orElseThrow();
		String tooLong = "z".repeat(2000);

		assertThatIllegalArgumentException().isThrownBy(() -> this.service.reserve(Set.of("a", tooLong)))
			.withMessageContaining("longer than the maximum");
		assertThat(this.redis.keys("baton:lock:*")).containsExactly("baton:lock:{stock:a}");
		held.release();
	}

	@Test
	void lockAtLeastForKeepsTheLockAfterAFastReturn() {
		this.service.nightly();
		this.service.nightly();

		assertThat(this.service.calls()).isEqualTo(1);
		assertThat(this.redis.getExpire("baton:lock:{nightly}", TimeUnit.MILLISECONDS)).isBetween(1L, 5000L);
	}

	@Test
	void completableFutureKeepsTheLockUntilItCompletes() {
		CompletableFuture<String> result = this.service.async();

		assertThat(this.redis.hasKey("baton:lock:{async}")).isTrue();
		this.service.pending().complete("done");
		// Released on a thread of Baton's, then completed.
		assertThat(result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("done");
		assertThat(this.redis.hasKey("baton:lock:{async}")).isFalse();

		LockLease held = this.locks.tryAcquire("async", Duration.ZERO).orElseThrow();
		assertThat(this.service.async()).isCompletedExceptionally();
		held.release();
	}

	@Test
	void monoTakesTheLockOnSubscriptionAndKeepsItUntilItTerminates() {
		Sinks.One<String> work = Sinks.one();
		Mono<String> result = this.service.reactive(work.asMono());
		assertThat(this.redis.hasKey("baton:lock:{reactive}")).as("locked before subscription").isFalse();

		CompletableFuture<String> subscribed = result.toFuture();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.redis.hasKey("baton:lock:{reactive}"));
		work.tryEmitValue("done");

		assertThat(subscribed).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("done");
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.redis.hasKey("baton:lock:{reactive}"));
	}

	@Test
	void keyThatEvaluatesToNullIsRejectedAndNothingIsLocked() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.service.shortLease(new LockedService.Order(null, List.of())))
			.withMessageContaining("#p0.id()")
			.withMessageContaining("LockedService.shortLease")
			.withMessageContaining("null");
		assertThat(this.redis.keys("*")).isEmpty();
	}

	@Test
	void leaseTimeBoundsTheLockEvenWhileTheMethodRuns() {
		AtomicBoolean expired = new AtomicBoolean();
		this.service.onInside(() -> expired.set(await().atMost(Duration.ofSeconds(5))
			.until(() -> !this.redis.hasKey("baton:lock:{LockedService.shortLease:o1}"), (gone) -> gone)));
		this.service.shortLease(new LockedService.Order("o1", List.of()));
		assertThat(expired).isTrue();
		assertThat(this.context.getBean(MeterRegistry.class).get("baton.lock.lost").tag("lock", "LockedService.shortLease").counter().count())
			.isEqualTo(1);
	}

	@Test
	void metersAreTaggedWithTheAnnotationNameNotTheKey() {
		this.service.pay(1);
		this.service.pay(2);

		MeterRegistry meters = this.context.getBean(MeterRegistry.class);
		assertThat(meters.get("baton.lock.acquire").tag("lock", "LockedService.pay").timer().count()).isEqualTo(2);
		assertThat(meters.find("baton.lock.acquire").tag("lock", "LockedService.pay:1").timer()).isNull();
	}

}
