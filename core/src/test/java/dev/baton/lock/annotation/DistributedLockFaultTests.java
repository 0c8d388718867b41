package dev.baton.lock.annotation;

import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import dev.baton.lock.LockRequest;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.RedisLock;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/** {@code @DistributedLock} through a plain proxy, under failures of acquisition, release, interrupts and cancels. */
@RedisTest
class DistributedLockFaultTests {

	private RedisLockManager redisLocks;

	private FaultyLockManager locks;

	private StringRedisTemplate redis;

	private Orders orders;

	@BeforeEach
	void setUp(RedisConnectionFactory connectionFactory, StringRedisTemplate redis) {
		this.redis = redis;
		this.redisLocks = RedisLockManager.builder(connectionFactory).build();
		this.locks = new FaultyLockManager(this.redisLocks);
		DistributedLockAdvisor advisor = new DistributedLockAdvisor(() -> this.locks, Duration.ZERO);
		advisor.setMaxKeys(10);
		ProxyFactory factory = new ProxyFactory(new Orders(redis));
		factory.setProxyTargetClass(true);
		factory.addAdvisor(advisor);
		this.orders = (Orders) factory.getProxy();
	}

	@AfterEach
	void close() {
		Thread.interrupted();
		this.redisLocks.close();
	}

	private List<String> lockKeys() {
		return this.redis.keys("baton:lock:*").stream().filter((key) -> !key.endsWith(":fence") && !key.endsWith(":waiting")).toList();
	}

	@Test
	void multiKeyAcquisitionThatFailsMidwayReleasesWhatItTook() {
		this.locks.failAcquireOf = "stock:b";

		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> this.orders.reserve(Set.of("a", "b", "c")));

		assertThat(lockKeys()).isEmpty();
		assertThat(this.redisLocks.heldCount()).as("leases still renewed").isZero();
	}

	@Test
	void multiKeyReleaseTriesEveryLeaseAndRethrowsTheFirstFailure() {
		this.locks.failReleaseOf = "stock:b";

		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> this.orders.reserve(Set.of("a", "b", "c")))
			.withMessageContaining("stock:b");

		assertThat(lockKeys()).isEmpty();
		assertThat(this.redisLocks.heldCount()).isZero();
	}

	@Test
	void failedReleaseAfterAFailingBodyIsSuppressedIntoTheBodysException() {
		this.locks.failReleaseOf = "stock:a";

		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.orders.reserveAndFail(Set.of("a", "b")))
			.withMessage("out of stock")
			.satisfies((ex) -> assertThat(ex.getSuppressed()).hasOnlyElementsOfType(LockUnavailableException.class));
		assertThat(lockKeys()).isEmpty();
	}

	@Test
	void interruptedCallerStillReleasesAndKeepsItsInterrupt() {
		this.orders.payInterrupted(42);

		assertThat(Thread.interrupted()).isTrue();
		assertThat(lockKeys()).isEmpty();
	}

	@Test
	void reactiveBodyRunsUnderTheLock() {
		assertThat(this.orders.reactive("r1").block(Duration.ofSeconds(10))).isEqualTo("locked=true");
		assertThat(lockKeys()).isEmpty();
	}

	@Test
	void reactiveCallCancelledWhileWaitingLeavesNoLease() throws Exception {
		LockLease other = this.redisLocks.tryAcquire("Orders.reactive:r2", Duration.ZERO).orElseThrow();
		AtomicBoolean bodyRan = new AtomicBoolean();
		this.orders.onReactiveBody = () -> bodyRan.set(true);
		Disposable subscription = this.orders.reactive("r2").subscribe();
		Thread.sleep(300);

		subscription.dispose();
		other.release();

		// The waiting acquisition gets the lock after the cancel and must hand it straight back.
		Thread.sleep(1000);
		await().atMost(Duration.ofSeconds(5)).until(() -> lockKeys().isEmpty());
		assertThat(this.redisLocks.heldCount()).isZero();
		assertThat(bodyRan).isFalse();
	}

	@Test
	void completionStageContinuationsRunOnceTheLockIsReleased() throws Exception {
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<Boolean> lockedInContinuation = this.orders.async(work)
			.thenApply((value) -> this.redis.hasKey("baton:lock:{Orders.async}"));
		assertThat(this.redis.hasKey("baton:lock:{Orders.async}")).isTrue();

		work.complete("done");

		assertThat(lockedInContinuation.get(10, TimeUnit.SECONDS)).isFalse();
	}

	@Test
	void theLocksOfAnAsyncResultAreNotReleasedOnTheThreadThatCompletesIt() throws Exception {
		this.locks.recordReleaseThreads = true;
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = this.orders.async(work);
		Thread completer = new Thread(() -> work.complete("done"), "completer");
		completer.start();
		completer.join();

		assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(this.locks.releaseThreads).isNotEmpty().doesNotContain("completer");
		assertThat(lockKeys()).isEmpty();
	}

	@Test
	void aReleaseFailureAfterASuccessfulAsyncBodyKeepsTheResult() throws Exception {
		this.locks.failReleaseOf = "Orders.async";
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = this.orders.async(work);
		work.complete("done");

		assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(lockKeys()).isEmpty();
	}

	@Test
	void aReleaseFailureAfterASuccessfulReactiveBodyKeepsTheResult() {
		this.locks.failReleaseOf = "Orders.reactive:r3";

		assertThat(this.orders.reactive("r3").block(Duration.ofSeconds(10))).isEqualTo("locked=true");
		assertThat(lockKeys()).isEmpty();
	}

	@Test
	void cancellingTheReturnedFutureReleasesTheLocks() {
		CompletableFuture<String> never = new CompletableFuture<>();
		CompletableFuture<String> result = this.orders.async(never);
		assertThat(lockKeys()).containsExactly("baton:lock:{Orders.async}");

		result.cancel(true);

		await().atMost(Duration.ofSeconds(5)).until(() -> lockKeys().isEmpty());
		assertThat(this.redisLocks.heldCount()).isZero();
		assertThat(never).as("the method's own future is cancelled too").isCancelled();
	}

	@Test
	void keyWhoseToStringIsTheObjectIdentityIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.orders.ship(new Parcel()))
			.withMessageContaining("Orders.ship(Parcel)")
			.withMessageContaining("#parcel")
			.withMessageContaining("identity");
		assertThat(this.redis.keys("baton:lock:*")).isEmpty();
	}

	@Test
	void collectionKeyWithTooManyElementsIsRefused() {
		Set<String> skus = Set.copyOf(IntStream.range(0, 11).mapToObj(String::valueOf).toList());

		assertThatIllegalArgumentException().isThrownBy(() -> this.orders.reserve(skus))
			.withMessageContaining("11 elements")
			.withMessageContaining("baton.lock.max-keys");
		assertThat(this.redis.keys("baton:lock:*")).isEmpty();
	}

	@Test
	void annotationsAProxyCannotApplyAreReportedAtStartUp() {
		Logger logger = (Logger) LoggerFactory.getLogger(LockedMethods.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		try {
			ProxyFactory factory = new ProxyFactory(new Unproxyable());
			factory.setProxyTargetClass(true);
			factory.addAdvisor(new DistributedLockAdvisor(() -> this.locks, Duration.ZERO));
			factory.getProxy();
			new DistributedLockAdvisor(() -> this.locks, Duration.ZERO).getPointcut()
				.getClassFilter()
				.matches(Unproxyable.class);
		}
		finally {
			logger.detachAppender(appender);
		}
		assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
			.anySatisfy((message) -> assertThat(message).contains("Unproxyable.secret()").contains("private"))
			.anySatisfy((message) -> assertThat(message).contains("Unproxyable.fixed()").contains("final"));
	}

	@Test
	void callsFromInsideTheClassToItsLockedMethodsAreReportedAtStartUpNamingCallerAndCallee() {
		Logger logger = (Logger) LoggerFactory.getLogger(LockedMethods.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		try {
			new DistributedLockAdvisor(() -> this.locks, Duration.ZERO).getPointcut()
				.getClassFilter()
				.matches(SelfCalling.class);
		}
		finally {
			logger.detachAppender(appender);
		}
		assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
			.anySatisfy((message) -> assertThat(message).contains("SelfCalling.settleEverything(...) -> settle(long)"))
			.anySatisfy((message) -> assertThat(message).contains("SelfCalling.settleLater(...) -> settle(long)"))
			.noneSatisfy((message) -> assertThat(message).contains("SelfCalling.settleThroughTheBean"));
	}

	@Test
	void unproxiedLocksFailStartUpWhenAskedTo() {
		DistributedLockAdvisor advisor = new DistributedLockAdvisor(() -> this.locks, Duration.ZERO);
		advisor.setFailOnUnproxiedCalls(true);

		assertThatIllegalStateException().isThrownBy(() -> advisor.getPointcut().getClassFilter().matches(SelfCalling.class))
			.withMessageContaining("SelfCalling.settleEverything(...) -> settle(long)")
			.withMessageContaining("baton.lock.fail-on-unproxied-calls");
		assertThatIllegalStateException()
			.isThrownBy(() -> advisor.getPointcut().getClassFilter().matches(Unproxyable.class))
			.withMessageContaining("has no effect");
	}

	static class SelfCalling {

		private SelfCalling self;

		@DistributedLock(key = "#orderId")
		public void settle(long orderId) {
		}

		public void settleEverything() {
			settle(1);
		}

		public Runnable settleLater() {
			return () -> settle(2);
		}

		public void settleThroughTheBean() {
			this.self.toString();
		}

	}

	static class Parcel {

	}

	static class Unproxyable {

		@DistributedLock
		private void secret() {
		}

		@DistributedLock
		public final void fixed() {
		}

	}

	static class Orders {

		private final StringRedisTemplate redis;

		Runnable onReactiveBody = () -> {
		};

		Orders(StringRedisTemplate redis) {
			this.redis = redis;
		}

		@DistributedLock(name = "stock", key = "#skus")
		public void reserve(Set<String> skus) {
		}

		@DistributedLock(name = "stock", key = "#skus")
		public void reserveAndFail(Set<String> skus) {
			throw new IllegalStateException("out of stock");
		}

		@DistributedLock(key = "#orderId")
		public void payInterrupted(long orderId) {
			Thread.currentThread().interrupt();
		}

		@DistributedLock(key = "#id", waitTime = "10s")
		public Mono<String> reactive(String id) {
			this.onReactiveBody.run();
			boolean locked = this.redis.hasKey("baton:lock:{Orders.reactive:" + id + "}");
			return Mono.just("locked=" + locked);
		}

		@DistributedLock
		public CompletableFuture<String> async(CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(key = "#parcel")
		public void ship(Parcel parcel) {
		}

	}

	/** The real lock manager, made to fail for one name on acquire, or after one release. */
	static final class FaultyLockManager implements LockManager {

		private final LockManager delegate;

		volatile String failAcquireOf;

		volatile String failReleaseOf;

		volatile boolean recordReleaseThreads;

		final List<String> releaseThreads = new CopyOnWriteArrayList<>();

		FaultyLockManager(LockManager delegate) {
			this.delegate = delegate;
		}

		@Override
		public RedisLock getLock(String name, String group) {
			return this.delegate.getLock(name, group);
		}

		@Override
		public Optional<LockLease> tryAcquire(LockRequest request) {
			if (request.name().equals(this.failAcquireOf)) {
				throw new LockUnavailableException("Redis did not acquire lock '" + request.name() + "'",
						new IllegalStateException("injected"));
			}
			return this.delegate.tryAcquire(request).map((lease) -> request.name().equals(this.failReleaseOf)
					? new FailingRelease(lease) : this.recordReleaseThreads ? new RecordedRelease(lease, this.releaseThreads)
					: lease);
		}

	}

	/** A real lease whose release does something more: {@link #release(Duration)} releases at once. */
	abstract static class LeaseWithARelease implements LockLease {

		final LockLease lease;

		LeaseWithARelease(LockLease lease) {
			this.lease = lease;
		}

		@Override
		public String name() {
			return this.lease.name();
		}

		@Override
		public long fencingToken() {
			return this.lease.fencingToken();
		}

		@Override
		public boolean isValid() {
			return this.lease.isValid();
		}

		@Override
		public void release(Duration lockAtLeastFor) {
			release();
		}

	}

	/** A lease that notes the threads it is released on. */
	static final class RecordedRelease extends LeaseWithARelease {

		private final List<String> threads;

		RecordedRelease(LockLease lease, List<String> threads) {
			super(lease);
			this.threads = threads;
		}

		@Override
		public void release() {
			this.threads.add(Thread.currentThread().getName());
			this.lease.release();
		}

	}

	/** A lease whose release reaches Redis, then reports a failure, as a reply lost on the way back would. */
	static final class FailingRelease extends LeaseWithARelease {

		FailingRelease(LockLease lease) {
			super(lease);
		}

		@Override
		public void release() {
			this.lease.release();
			throw new LockUnavailableException("Redis did not release lock '" + name() + "'",
					new IllegalStateException("injected"));
		}

	}

}
