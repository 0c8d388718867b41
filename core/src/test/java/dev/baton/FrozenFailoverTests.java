package dev.baton;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.baton.internal.PrimarySwitchWatch;
import dev.baton.lock.LockLease;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.support.ChildJvm;
import dev.baton.support.DirectRedis;
import dev.baton.test.LocalRedisSentinel;
import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisProxy;
import dev.baton.test.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application frozen (a long stop-the-world pause, a suspended VM) while Redis Sentinel fails
 * its primary over: when it runs again, its threads may write before it has read the sentinels'
 * messages, and the old primary, not yet demoted, would grant a lock the new primary knows nothing of.
 * Here the messages reach the frozen JVM late (the sentinels are behind a proxy with latency), so
 * that its first write after the freeze always comes before them.
 */
class FrozenFailoverTests {

	private static final String LOCK_KEY = "baton:lock:{nightly}";

	@Test
	void aJvmFrozenThroughAFailoverTakesItsNextLockOnTheNewPrimary() throws Exception {
		Outcome outcome = acquireAfterAFreezeThroughAFailover();

		// Granted on the new primary as a rule. On a loaded machine the detector may also take the
		// write's round trip for a stop, and a failover message read after the write went out then
		// makes the reply not count: refused, its outcome unknown, which is safe too.
		outcome.assertGrantedOnTheNewPrimaryOrRefused("frozen");
	}

	@Test
	void aJvmFrozenThroughAFailoverWaitingForReplicasIsNotGrantedALockOnTheOldPrimary() throws Exception {
		// Its acquisition goes out on a connection of its own, opened to the old primary before the
		// freeze and not held back: the WAIT behind it is what refuses it, as the replica it waits
		// for follows the new primary now.
		Outcome outcome = acquireAfterAFreezeThroughAFailover(Child.WAIT_FOR_REPLICA);

		outcome.assertGrantedOnTheNewPrimaryOrRefused("replica");
	}

	/**
	 * Freezes the child, fails the primary over and lets the child take a lock as it runs again,
	 * with the failover's messages still on their way to it.
	 */
	private Outcome acquireAfterAFreezeThroughAFailover(String... childOptions) throws Exception {
		List<RedisProxy> proxies = new ArrayList<>();
		try (LocalRedisSentinel sentinel = RedisServers.startSentinel()) {
			sentinel.sentinels().forEach((node) -> proxies.add(RedisProxy.to(node.host(), node.port())));
			List<String> args = new ArrayList<>(List.of(childOptions));
			args.add(sentinel.masterName());
			proxies.forEach((proxy) -> args.add(proxy.host() + ":" + proxy.port()));
			LocalRedisServer newPrimary = sentinel.dataNodes().stream()
				.filter((node) -> node.port() != sentinel.primaryPort())
				.findFirst()
				.orElseThrow();
			try (ChildJvm child = ChildJvm.start(Child.class, args.toArray(String[]::new))) {
				child.awaitLine("ready", Duration.ofSeconds(60));
				proxies.forEach((proxy) -> proxy.latency(Duration.ofSeconds(2)));
				child.pause();
				// Read at once when the child runs again.
				child.send("acquire nightly");
				sentinel.failover();
				child.resumeAfter(Duration.ZERO);
				// The messages of the failover are still on their way to the child; later ones come without delay.
				TimeUnit.SECONDS.sleep(1);
				proxies.forEach(RedisProxy::heal);

				String reply = child.awaitLine("outcome", Duration.ofSeconds(30));
				// A refused grant is released quietly, in the background.
				return new Outcome(reply, reply.equals("granted") ? DirectRedis.exists(newPrimary, LOCK_KEY)
						: stillHeldAfter(newPrimary, Duration.ofSeconds(5)));
			}
		}
		finally {
			proxies.forEach(RedisProxy::close);
		}
	}

	@Test
	void aLockGrantedWhileItsJvmWasFrozenThroughAFailoverDoesNotCount() throws Exception {
		try (LocalRedisSentinel sentinel = RedisServers.startSentinel()) {
			LocalRedisServer oldPrimary = sentinel.dataNodes().stream()
				.filter((node) -> node.port() == sentinel.primaryPort())
				.findFirst()
				.orElseThrow();
			List<String> args = new ArrayList<>(List.of(sentinel.masterName()));
			args.addAll(sentinel.sentinelNodes());
			try (ChildJvm child = ChildJvm.start(Child.class, args.toArray(String[]::new))) {
				child.awaitLine("ready", Duration.ofSeconds(60));
				// The child's acquisition reaches the old primary before the freeze, and runs there after the failover.
				DirectRedis.pauseWrites(oldPrimary, Duration.ofSeconds(4));
				child.send("acquire nightly");
				TimeUnit.MILLISECONDS.sleep(500);
				child.pause();
				sentinel.failover();
				await().atMost(Duration.ofSeconds(10)).until(() -> DirectRedis.exists(oldPrimary, LOCK_KEY));
				child.resumeAfter(Duration.ZERO);

				String outcome = child.awaitLine("outcome", Duration.ofSeconds(30));
				assertThat(outcome).startsWith("failed").contains("frozen");
			}
		}
	}

	private static boolean stillHeldAfter(LocalRedisServer node, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (DirectRedis.exists(node, LOCK_KEY)) {
			if (System.nanoTime() - deadline > 0) {
				return true;
			}
			TimeUnit.MILLISECONDS.sleep(100);
		}
		return false;
	}

	/**
	 * What the child's acquisition after the freeze came to.
	 * @param reply "granted", "refused" or "failed: " and why
	 * @param onNewPrimary whether the new primary has the lock (after a refusal, still has it once
	 * the quiet release had time)
	 */
	private record Outcome(String reply, boolean onNewPrimary) {

		/** Never granted on the old primary alone: granted on the new one, or failed for the given reason. */
		void assertGrantedOnTheNewPrimaryOrRefused(String reason) {
			if (this.reply.equals("granted")) {
				assertThat(this.onNewPrimary).as("the lock the child was granted is on the new primary").isTrue();
			}
			else {
				assertThat(this.reply).startsWith("failed").contains(reason);
				assertThat(this.onNewPrimary).as("a lock on the new primary").isFalse();
			}
		}

	}

	/** The frozen application: a lock manager that follows the primary's switches, and takes locks when asked. */
	static final class Child {

		/** The first argument, if the child's acquisitions wait for a replica. */
		static final String WAIT_FOR_REPLICA = "--wait-for-replica";

		public static void main(String[] arguments) throws Exception {
			boolean waitForReplica = arguments[0].equals(WAIT_FOR_REPLICA);
			List<String> args = Arrays.asList(arguments).subList(waitForReplica ? 1 : 0, arguments.length);
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
					new RedisSentinelConfiguration(args.get(0), Set.copyOf(args.subList(1, args.size()))));
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			PrimarySwitchWatch watch = PrimarySwitchWatch.of(connectionFactory).orElseThrow();
			RedisLockManager.Builder builder = RedisLockManager.builder(connectionFactory)
				.commandTimeout(Duration.ofSeconds(10));
			if (waitForReplica) {
				builder.replicaAcknowledgement(1, Duration.ofMillis(500));
			}
			RedisLockManager locks = builder.build();
			locks.followPrimarySwitches(watch);
			watch.start();
			locks.tryAcquire("warm-up", Duration.ZERO).ifPresent(LockLease::release);
			System.out.println("ready");
			BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			for (String line = commands.readLine(); line != null; line = commands.readLine()) {
				String name = line.substring("acquire ".length());
				try {
					Optional<LockLease> lease = locks.tryAcquire(name, Duration.ZERO);
					System.out.println("outcome " + (lease.isPresent() ? "granted" : "refused"));
				}
				catch (RuntimeException ex) {
					System.out.println("outcome failed: " + ex.getMessage());
				}
			}
		}

	}

}
