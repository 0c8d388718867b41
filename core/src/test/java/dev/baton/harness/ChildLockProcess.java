package dev.baton.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.baton.internal.PrimarySwitchWatch;
import dev.baton.lock.LockLease;
import dev.baton.lock.LockUnavailableException;
import dev.baton.lock.redis.RedisLockManager;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The main of the child JVM that {@link ChildLockInstance} runs beside the harness's instances, so
 * that a {@link FaultKind#JVM_PAUSE} freezes lock holders whole, watchdog and all. Its workers take
 * {@link LockWorkload#CHILD_NAME}, which a worker of each instance takes too, with
 * {@link LockLease}s configured as the instances' are, and hold it longer than the instances'
 * workers do, so that a pause often finds one inside. What they do at
 * the resource (enter, write, leave) they ask the harness JVM to do, one request at a time, and
 * wait for its answer: its register and counter see them in the order they happened. Loss reports
 * are told without an answer.
 */
final class ChildLockProcess {

	/** Starts every line of the protocol; other output (logging) is not. */
	static final String PREFIX = "@@ ";

	private static final Duration[] WAITS = { Duration.ZERO, Duration.ofMillis(100), Duration.ofMillis(500),
			Duration.ofSeconds(1) };

	private static final Duration FIXED_LEASE = Duration.ofMillis(1500);

	private final BufferedReader answers = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

	private ChildLockProcess() {
	}

	/**
	 * Arguments: the seed, the number of worker threads, then where Redis is:
	 * {@code standalone <port>} on the loopback, {@code sentinel <master name> <node>...}, or
	 * {@code cluster <node>...}.
	 */
	public static void main(String[] args) throws Exception {
		long seed = Long.parseLong(args[0]);
		int threads = Integer.parseInt(args[1]);
		ChildLockProcess child = new ChildLockProcess();
		try (InstanceProxies link = InstanceProxies.none()) {
			LettuceConnectionFactory factory = HarnessInstance.connectionFactory(redis(args), link.resources());
			// On Sentinel, the lock manager follows the primary's switches, as the instances' do.
			PrimarySwitchWatch watch = PrimarySwitchWatch.of(factory).orElse(null);
			try (RedisLockManager locks = RedisLockManager.builder(factory)
				.leaseTime(HarnessInstance.LEASE_TIME)
				.commandTimeout(HarnessInstance.COMMAND_TIMEOUT)
				.lockLostListener((event) -> child.tell("lost " + event.name() + " " + event.fencingToken()))
				.build()) {
				if (watch != null) {
					locks.followPrimarySwitches(watch);
					watch.start();
				}
				warmUp(locks);
				child.ask("ready");
				List<Thread> workers = new ArrayList<>();
				for (int i = 0; i < threads; i++) {
					Random random = new Random(seed * 1_000 + 900 + i);
					String holder = "child/t" + i;
					Thread worker = new Thread(() -> child.work(holder, locks, random), "child-lock-" + i);
					worker.start();
					workers.add(worker);
				}
				for (Thread worker : workers) {
					worker.join();
				}
				locks.allReleased().get(HarnessInstance.LEASE_TIME.toMillis() + 5000, TimeUnit.MILLISECONDS);
				child.ask("done " + locks.heldCount());
			}
			finally {
				if (watch != null) {
					watch.close();
				}
				factory.destroy();
			}
		}
		System.exit(0);
	}

	private static RedisConfiguration redis(String[] args) {
		return switch (args[2]) {
			case "standalone" -> new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[3]));
			case "sentinel" -> new RedisSentinelConfiguration(args[3], Set.of(Arrays.copyOfRange(args, 4, args.length)));
			default -> new RedisClusterConfiguration(List.of(Arrays.copyOfRange(args, 3, args.length)));
		};
	}

	/** Connects, loads the scripts and compiles the paths of a cold JVM, before the run counts anything. */
	private static void warmUp(RedisLockManager locks) {
		for (int i = 0; i < 20; i++) {
			try {
				locks.tryAcquire(LockWorkload.CHILD_NAME + ":warm-up", Duration.ZERO).ifPresent((lease) -> {
					lease.fencingToken();
					lease.release();
				});
			}
			catch (LockUnavailableException ex) {
				// Still connecting, or slow while cold.
				Pause.millis(50);
			}
		}
	}

	private void work(String holder, RedisLockManager locks, Random random) {
		for (int round = 1; ask("begin").equals("go"); round++) {
			String name = LockWorkload.CHILD_NAME;
			Duration wait = WAITS[random.nextInt(WAITS.length)];
			// One lease in four has a lease time of its own, not renewed.
			Duration leaseTime = (random.nextInt(4) == 0) ? FIXED_LEASE : null;
			long holdMillis = 50 + random.nextInt(750);
			try {
				Optional<LockLease> acquired = locks.tryAcquire(name, wait, leaseTime);
				if (acquired.isPresent()) {
					hold(holder + "/" + round, name, acquired.get(), holdMillis);
				}
			}
			catch (LockUnavailableException ex) {
				Pause.millis(20);
			}
		}
	}

	private void hold(String holder, String name, LockLease lease, long holdMillis) {
		try {
			long token = lease.fencingToken();
			ask("enter " + holder + " " + name + " " + token);
			Pause.millis(holdMillis);
			ask("write " + holder);
			ask("exit " + holder + " " + lease.isValid());
		}
		catch (IllegalStateException | LockUnavailableException ex) {
			// Lost before a token was issued, or Redis did not answer: no section.
		}
		finally {
			try {
				lease.release();
			}
			catch (LockUnavailableException ex) {
				// Unconfirmed: Baton retries it until the lease runs out.
			}
		}
	}

	/** Sends a request and waits for its answer; one request at a time, so answers come in order. */
	private synchronized String ask(String request) {
		tell(request);
		try {
			String answer = this.answers.readLine();
			if (answer == null) {
				// The harness JVM is gone: nobody is left to check anything.
				System.exit(1);
			}
			return answer;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** One line, never split by another thread's (a {@code PrintStream} writes each line at once). */
	private void tell(String line) {
		System.out.println(PREFIX + line);
	}

}
