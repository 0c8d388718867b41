package dev.baton.queue.listener;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.QueueStats;
import dev.baton.support.ChildJvm;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A consumer whose JVM is frozen past the visibility timeout (SIGSTOP) while its handler runs, as
 * a long GC pause or a suspended VM would freeze it: what docs/delayed-tasks.md and
 * docs/guarantees.md promise of it.
 */
@RedisTest
class ConsumerPauseTests {

	private static final String TASK = "t-1";

	private static final String IN_FLIGHT_KEY = "baton:q:{" + SteppedJob.QUEUE + "}:inflight";

	/** How long the consumer stays frozen: long past the visibility its container last extended. */
	private static final Duration PAUSE = SteppedJob.VISIBILITY.multipliedBy(3);

	/**
	 * An extension the child wrote just before it froze reaches Redis on the loopback well within
	 * this; after it, nothing of the child's can move the visibility deadline.
	 */
	private static final Duration IN_FLIGHT = Duration.ofMillis(100);

	/** Starting a JVM and a listener container on 2 shared cores; not under test. */
	private static final Duration START_BOUND = Duration.ofSeconds(30);

	/**
	 * From scheduling a due task to its handler starting in the child; not under test: a missed
	 * wake-up waits for the idle poll (5 s by default).
	 */
	private static final Duration CLAIM_BOUND = ListenerSettings.DEFAULTS.maxIdlePoll().plusSeconds(5);

	/**
	 * How long after the visibility ran out the consumer here may take to start the task: its
	 * claim found the task in flight and was told when the visibility ends, so it claims again
	 * then; this is scheduling slack.
	 */
	private static final Duration REDELIVERY_SLACK = Duration.ofSeconds(1);

	/** The handler here works all its steps, then acknowledges; a second of slack. */
	private static final Duration HANDLING_BOUND = SteppedJob.STEP.multipliedBy(SteppedJob.STEPS).plusSeconds(1);

	/**
	 * How soon the resumed handler must see its task lost: the container's overdue extension runs
	 * at once, at worst an extension period (a third of the visibility) later, and Redis answers it
	 * stale; the handler checks before each step; a second of slack.
	 */
	private static final Duration LOSS_BOUND = SteppedJob.VISIBILITY.dividedBy(3)
		.plus(SteppedJob.STEP)
		.plusSeconds(1);

	/** The acknowledgement goes out at once (its lane polls every 100 ms); a second of slack. */
	private static final Duration STALE_ACK_BOUND = Duration.ofSeconds(1);

	/**
	 * The child consumer's handler starts on a task and its JVM is frozen for three visibility
	 * timeouts. The consumer here gets the task again once the visibility ran out on Redis's
	 * clock, not before, handles it and acknowledges it; a task of the same id is then scheduled
	 * anew. The child, let run again, sees in its handler that the task is lost, and the
	 * acknowledgement its handler's return sends is answered stale and counted: the task was
	 * handled twice, once by each, settled once, and the new task of the same id is untouched.
	 */
	@Test
	void aConsumerFrozenPastTheVisibilityTimeoutLosesTheTaskToAnotherAndSettlesNothing(RedisServer server,
			RedisConnectionFactory connectionFactory, StringRedisTemplate redis) throws Exception {
		BlockingQueue<String> saidHere = new LinkedBlockingQueue<>();
		try (ListenerContext here = new ListenerContext(connectionFactory, (queue) -> ListenerSettings.DEFAULTS,
				new SteppedJob(redis, "here", saidHere::add));
				ChildJvm child = ChildJvm.start(SteppedConsumerProcess.class, server.url())) {
			child.awaitLine("ready", START_BOUND);
			DelayQueue<String> queue = here.queues.get(SteppedJob.QUEUE, String.class);
			queue.schedule(TASK, "first", Duration.ZERO);
			assertThat(child.awaitLine("started=", CLAIM_BOUND)).startsWith(TASK + " attempt=1 ");

			child.pause();
			Thread.sleep(IN_FLIGHT.toMillis());
			long visibleUntil = visibilityDeadline(redis);

			here.start();
			long startedHere = startedAtOnRedisClock(saidHere, "started=" + TASK + " attempt=2 ",
					visibleUntil - SteppedJob.redisMillis(redis) + REDELIVERY_SLACK.toMillis());
			assertThat(startedHere).isBetween(visibleUntil, visibleUntil + REDELIVERY_SLACK.toMillis());
			await().atMost(HANDLING_BOUND).until(() -> queue.find(TASK).isEmpty());
			// A task of the same id: the stale acknowledgement must not take it for the old one.
			assertThat(queue.schedule(TASK, "again", Duration.ofHours(1))).isTrue();

			child.resumeAfter(PAUSE);
			assertThat(child.awaitLine("ended ", LOSS_BOUND)).startsWith("child attempt=1 lost=true ");
			await().atMost(STALE_ACK_BOUND).until(() -> staleAcknowledgements(child) >= 1);

			assertThat(redis.opsForList().range(SteppedJob.HANDLED, 0, -1))
				.containsExactlyInAnyOrder("here attempt=2 lost=false", "child attempt=1 lost=true");
			assertThat(SteppedConsumerProcess.stale(here.meters, "ack")).as("stale acknowledgements here").isZero();
			assertThat(queue.find(TASK)).hasValueSatisfying((task) -> {
				assertThat(task.payload()).isEqualTo("again");
				assertThat(task.inFlight()).isFalse();
			});
			assertThat(queue.stats()).isEqualTo(new QueueStats(1, 0, 0, 0, null));
		}
	}

	/**
	 * The visibility deadline of the task in flight, in milliseconds of the Redis clock. The frozen
	 * consumer must hold it with at most a visibility timeout left.
	 */
	private static long visibilityDeadline(StringRedisTemplate redis) {
		Double deadline = redis.opsForZSet().score(IN_FLIGHT_KEY, TASK);
		assertThat(deadline).as("visibility deadline of the frozen consumer's delivery").isNotNull();
		assertThat(deadline.longValue() - SteppedJob.redisMillis(redis)).as("visibility left when it froze, ms")
			.isPositive()
			.isLessThanOrEqualTo(SteppedJob.VISIBILITY.toMillis());
		return deadline.longValue();
	}

	/**
	 * Waits up to {@code millis} for the handler here to say it started; returns when it did, on
	 * the Redis clock.
	 */
	private static long startedAtOnRedisClock(BlockingQueue<String> said, String started, long millis)
			throws InterruptedException {
		String line = said.poll(Math.max(millis, 0), TimeUnit.MILLISECONDS);
		assertThat(line).as("the consumer here started the task again").isNotNull().startsWith(started);
		return Long.parseLong(line.substring(line.indexOf(" at=") + " at=".length()));
	}

	private static long staleAcknowledgements(ChildJvm child) throws Exception {
		child.send("stale");
		String counts = child.awaitLine("stale ", STALE_ACK_BOUND);
		return Long.parseLong(counts.substring("ack=".length(), counts.indexOf(' ')));
	}

}
