package dev.baton.lock.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockLostEvent;
import dev.baton.support.ChildJvm;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A child JVM that holds a lock renewed by the watchdog and writes to a {@link FencedRegister}
 * with its fencing token. Arguments: Redis URL, lock name, watchdog lease in ms, register key.
 * Prints {@code token=<n>} once it holds the lock, then answers each line of standard input:
 * <ul>
 * <li>{@code write <value>}: {@code valid=<isValid()> written=<whether the register took it>}
 * <li>{@code lost <ms>}: {@code lost=<fencing token of the LockLostEvent>}, waiting up to
 * {@code ms} for the manager to report the loss, or {@code lost=none}
 * <li>{@code release}: {@code released}
 * </ul>
 */
public final class FencedHolderProcess {

	private FencedHolderProcess() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory connectionFactory = ChildJvm.connectionFactory(args[0]);
		FencedRegister register = new FencedRegister(new StringRedisTemplate(connectionFactory), args[3]);
		BlockingQueue<LockLostEvent> losses = new LinkedBlockingQueue<>();
		try (RedisLockManager locks = RedisLockManager.builder(connectionFactory)
			.instanceName("paused-child")
			.leaseTime(Duration.ofMillis(Long.parseLong(args[2])))
			.lockLostListener(losses::add)
			.build()) {
			LockLease lease = locks.tryAcquire(args[1], Duration.ZERO)
				.orElseThrow(() -> new IllegalStateException("not acquired"));
			long token = lease.fencingToken();
			say("token=" + token);
			BufferedReader input = new BufferedReader(new InputStreamReader(System.in));
			for (String line = input.readLine(); line != null; line = input.readLine()) {
				if (line.startsWith("write ")) {
					// Checks the lease, then writes whatever it says: the write of a holder paused
					// right after its check, which only the fence can refuse.
					boolean valid = lease.isValid();
					say("valid=" + valid + " written=" + register.write(token, line.substring("write ".length())));
				}
				else if (line.startsWith("lost ")) {
					LockLostEvent lost = losses.poll(Long.parseLong(line.substring("lost ".length())),
							TimeUnit.MILLISECONDS);
					say("lost=" + ((lost != null) ? lost.fencingToken() : "none"));
				}
				else if (line.equals("release")) {
					lease.release();
					say("released");
				}
			}
		}
		finally {
			connectionFactory.destroy();
		}
	}

	private static void say(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
