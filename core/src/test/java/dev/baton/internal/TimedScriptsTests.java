package dev.baton.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.baton.support.CommandStats;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link TimedScripts} keeps the shared Lettuce connection it found, and finds the new one once
 * the factory replaced it; it holds calls back while a {@link FailoverHold} holds, within their
 * timeout, and after a {@link FreezeDetector freeze} until the sentinels' messages are read.
 */
@RedisTest
class TimedScriptsTests {

	private static final RedisScript<Long> INCREMENT = RedisScript.of("return redis.call('INCR', KEYS[1])", Long.class);

	/** Increments after 200 ms of Redis time. */
	private static final RedisScript<Long> SLOW_INCREMENT = RedisScript.of("""
			local function micros() local t = redis.call('TIME') return t[1] * 1000000 + t[2] end
			local start = micros()
			repeat until micros() - start > 200000
			return redis.call('INCR', KEYS[1])
			""", Long.class);

	private final String counter = "timed-scripts-tests:" + UUID.randomUUID();

	private LettuceConnectionFactory connectionFactory;

	private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor();

	/** The stops the detector noticed: those the tests make, and any a loaded machine adds (a starved ticking thread). */
	private final RecordingLog stopsNoticed = new RecordingLog();

	private final FreezeDetector freezes = new FreezeDetector(this.stopsNoticed);

	private final AtomicInteger catchUps = new AtomicInteger();

	@AfterEach
	void tearDown() {
		this.freezes.close();
		this.ticks.shutdownNow();
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
	}

	@Test
	void scriptsRunOnTheNewSharedConnectionAfterTheFactoryResetIt(RedisServer server) {
		TimedScripts scripts = scripts(server);
		assertThat(increment(scripts)).isEqualTo(1L);
		this.connectionFactory.resetConnection();
		assertThat(increment(scripts)).isEqualTo(2L);
	}

	@Test
	void scriptsRunAgainAfterTheFactoryWasStoppedAndStarted(RedisServer server) {
		TimedScripts scripts = scripts(server);
		assertThat(increment(scripts)).isEqualTo(1L);
		this.connectionFactory.stop();
		assertThatIllegalStateException().isThrownBy(() -> increment(scripts)).withMessageContaining("Redis did not");
		this.connectionFactory.start();
		assertThat(increment(scripts)).isEqualTo(2L);
	}

	@Test
	void scriptsRunOnDedicatedConnectionsWhenTheFactoryDoesNotShareOne(RedisServer server) {
		TimedScripts scripts = scripts(server, (factory) -> factory.setShareNativeConnection(false));
		assertThat(increment(scripts)).isEqualTo(1L);
		assertThat(increment(scripts)).isEqualTo(2L);
	}

	@Test
	void factoryThatValidatesItsConnectionValidatesItForEveryScript(RedisServer server) {
		TimedScripts scripts = scripts(server, (factory) -> factory.setValidateConnection(true));
		StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
		long pingsBefore = CommandStats.calls(redis, "ping");

		for (int i = 1; i <= 3; i++) {
			assertThat(increment(scripts)).isEqualTo((long) i);
		}

		// Each validation is a PING; the template's own call below validates once more.
		assertThat(CommandStats.calls(redis, "ping")).isGreaterThanOrEqualTo(pingsBefore + 3);
	}

	@Test
	void setIfAbsentSetsOnlyAMissingKeyAndGivesItTheExpiry(RedisServer server) {
		TimedScripts scripts = scripts(server, (factory) -> factory.setShareNativeConnection(false));
		StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);

		assertThat(scripts.setIfAbsent("set", this.counter, "first", 30_000)).isTrue();
		assertThat(scripts.setIfAbsent("set", this.counter, "second", 30_000)).isFalse();

		assertThat(redis.opsForValue().get(this.counter)).isEqualTo("first");
		assertThat(redis.getExpire(this.counter, TimeUnit.MILLISECONDS)).isBetween(1L, 30_000L);
		this.connectionFactory.stop();
		assertThatIllegalStateException().isThrownBy(() -> scripts.setIfAbsent("set the key", this.counter, "x", 1))
			.withMessageStartingWith("Redis did not set the key");
	}

	@Test
	void aCallMadeDuringAFailoverHoldWaitsAndGoesOutOnceTheHoldEnds(RedisServer server) throws Exception {
		TimedScripts scripts = scripts(server);
		FailoverHold hold = new FailoverHold(Duration.ofSeconds(30));
		scripts.followPrimary(hold);
		assertThat(hold.begin()).isTrue();
		CompletableFuture<Object> call = CompletableFuture.supplyAsync(() -> increment(scripts));
		Thread.sleep(300);
		assertThat(call).isNotDone();
		assertThat(new StringRedisTemplate(this.connectionFactory).hasKey(this.counter)).isFalse();

		hold.end();

		assertThat(call.get(2, TimeUnit.SECONDS)).isEqualTo(1L);
	}

	@Test
	void aCallThatTheHoldOutlastsFailsWithinItsTimeoutWithoutHavingBeenSent(RedisServer server) throws Exception {
		TimedScripts scripts = scripts(server);
		FailoverHold hold = new FailoverHold(Duration.ofSeconds(30));
		scripts.followPrimary(hold);
		hold.begin();
		long start = System.nanoTime();

		assertThatIllegalStateException().isThrownBy(() -> increment(scripts))
			.withMessageContaining("Redis Sentinel was still switching the primary");

		assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(1_900), Duration.ofSeconds(3));
		hold.end();
		assertThat(increment(scripts)).isEqualTo(1L);
	}

	@Test
	void aScriptSentWithoutWaitingDuringAHoldGoesOutOnceItEnds(RedisServer server) throws Exception {
		TimedScripts scripts = scripts(server);
		FailoverHold hold = new FailoverHold(Duration.ofSeconds(30));
		scripts.followPrimary(hold);
		hold.begin();
		scripts.sendQuietly(new TimedScripts.Script(INCREMENT, List.of(this.counter)));
		StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
		Thread.sleep(300);
		assertThat(redis.hasKey(this.counter)).isFalse();

		hold.end();

		await().atMost(Duration.ofSeconds(2)).until(() -> "1".equals(redis.opsForValue().get(this.counter)));
	}

	@Test
	void aReplyThatAFreezeMayHaveDelayedPastAFailoversStartIsRefusedAndHandedToWhoUndoesIt(RedisServer server) {
		TimedScripts scripts = scripts(server);
		scripts.followPrimary(holdReading(FailoverHold::failoverSeen));
		Map<Integer, Object> late = new ConcurrentHashMap<>();
		// While the script runs, the ticks are held up as in a frozen JVM.
		this.ticks.schedule(() -> sleep(300), 50, TimeUnit.MILLISECONDS);

		assertThatIllegalStateException()
			.isThrownBy(() -> scripts.evalAll("count", List.of(new TimedScripts.Script(SLOW_INCREMENT, List.of(this.counter))),
					Duration.ofSeconds(5), late::put))
			.withMessageContaining("frozen");

		assertThat(late).containsExactly(Map.entry(0, 1L));
		assertThat(new StringRedisTemplate(this.connectionFactory).opsForValue().get(this.counter)).isEqualTo("1");
	}

	@Test
	void afterAFreezeACallWaitsUntilTheSentinelsMessagesAreReadOnceAndTheHoldTheyBeganEnds(RedisServer server)
			throws Exception {
		TimedScripts scripts = frozenWhilePromoting(server);
		long start = System.nanoTime();

		assertThat(increment(scripts)).isEqualTo(1L);

		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		assertThat(increment(scripts)).isEqualTo(2L);
		assertCaughtUpOncePerStop();
	}

	@Test
	void afterAFreezeAScriptSentWithoutWaitingGoesOutOnceTheMessagesAreReadAndTheHoldTheyBeganEnds(RedisServer server)
			throws Exception {
		TimedScripts scripts = frozenWhilePromoting(server);
		StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);

		scripts.sendQuietly(new TimedScripts.Script(INCREMENT, List.of(this.counter)));

		Thread.sleep(150);
		assertThat(redis.hasKey(this.counter)).isFalse();
		await().atMost(Duration.ofSeconds(2)).until(() -> "1".equals(redis.opsForValue().get(this.counter)));
		assertCaughtUpOncePerStop();
	}

	@Test
	void aCallerInterruptedWhileTheMessagesAreReadStillWaitsForThemAndKeepsItsInterrupt(RedisServer server)
			throws Exception {
		TimedScripts scripts = scripts(server);
		scripts.followPrimary(holdCatchingUp((hold) -> CompletableFuture.runAsync(() -> {
		}, CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS))));
		freeze();
		Thread caller = Thread.currentThread();
		CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS).execute(caller::interrupt);
		long start = System.nanoTime();

		assertThat(increment(scripts)).isEqualTo(1L);

		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		assertThat(Thread.interrupted()).isTrue();
	}

	/**
	 * A hold whose freeze detector ticks on {@link #ticks}, which a test holds up as in a frozen
	 * JVM, and whose catch-up reads the given messages.
	 */
	private FailoverHold holdReading(Consumer<FailoverHold> messages) {
		return holdCatchingUp((hold) -> {
			messages.accept(hold);
			return CompletableFuture.completedFuture(null);
		});
	}

	/** As {@link #holdReading}, with a catch-up that reads the messages when it likes. */
	private FailoverHold holdCatchingUp(Function<FailoverHold, CompletableFuture<?>> catchUp) {
		this.freezes.start(this.ticks);
		FailoverHold[] hold = new FailoverHold[1];
		hold[0] = new FailoverHold(Duration.ofSeconds(5), this.freezes, () -> {
			this.catchUps.incrementAndGet();
			return catchUp.apply(hold[0]);
		});
		return hold[0];
	}

	/**
	 * The messages were read once for the stop the test made, not once per call: once more for
	 * each stop that the load of the machine added, which the detector cannot tell from a freeze.
	 */
	private void assertCaughtUpOncePerStop() {
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(this.catchUps.get()).isPositive()
				.isLessThanOrEqualTo(this.stopsNoticed.count()));
	}

	/** Scripts after a freeze during which the sentinels said a replica is being promoted. */
	private TimedScripts frozenWhilePromoting(RedisServer server) throws Exception {
		TimedScripts scripts = scripts(server);
		scripts.followPrimary(holdReading(TimedScriptsTests::promotingFor300Millis));
		freeze();
		return scripts;
	}

	/**
	 * Holds the ticking thread up for 200 ms, as a frozen JVM would, and returns once its late
	 * tick noticed it: a call made before would see the ticks late now, read the messages, and
	 * read them again once the tick counted the same stop after the reading began.
	 */
	private void freeze() throws Exception {
		int noticed = this.stopsNoticed.count();
		this.ticks.submit(() -> sleep(200)).get();
		await().atMost(Duration.ofSeconds(2)).until(() -> this.stopsNoticed.count() > noticed);
	}

	/** The messages read after a freeze: a replica is being promoted; the switch follows 300 ms later. */
	private static void promotingFor300Millis(FailoverHold hold) {
		hold.failoverSeen();
		hold.begin();
		CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(hold::end);
	}

	@Test
	void aHoldThatNothingEndsEndsAfterItsLimit() throws Exception {
		FailoverHold hold = new FailoverHold(Duration.ofMillis(200));
		assertThat(hold.begin()).isTrue();
		assertThat(hold.begin()).isFalse();
		assertThat(hold.holding()).isTrue();

		hold.ready().get(2, TimeUnit.SECONDS);

		assertThat(hold.holding()).isFalse();
		assertThat(FailoverHold.NONE.begin()).isFalse();
		assertThat(FailoverHold.NONE.holding()).isFalse();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private TimedScripts scripts(RedisServer server) {
		return scripts(server, (factory) -> {
		});
	}

	private TimedScripts scripts(RedisServer server, Consumer<LettuceConnectionFactory> customizer) {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(server.host(), server.port()));
		customizer.accept(this.connectionFactory);
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		return new TimedScripts(BatonThreads.PLATFORM, this.connectionFactory, Duration.ofSeconds(2), IllegalStateException::new);
	}

	private Object increment(TimedScripts scripts) {
		return scripts.eval("increment", INCREMENT, List.of(this.counter));
	}

}
