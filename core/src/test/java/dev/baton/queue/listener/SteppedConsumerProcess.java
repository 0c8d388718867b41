package dev.baton.queue.listener;

import java.io.BufferedReader;
import java.io.InputStreamReader;

import dev.baton.support.ChildJvm;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A consumer of {@link SteppedJob} tasks in a child JVM, named {@code child}:
 * {@code SteppedConsumerProcess <redis-url>}. Prints {@code ready} once it consumes and what its
 * handler says, and answers {@code stale} with its {@code baton.queue.stale} counter by operation:
 * {@code stale ack=<n> extend=<n>}.
 */
final class SteppedConsumerProcess {

	private SteppedConsumerProcess() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory connectionFactory = ChildJvm.connectionFactory(args[0]);
		SteppedJob job = new SteppedJob(new StringRedisTemplate(connectionFactory), "child",
				SteppedConsumerProcess::say);
		try (ListenerContext consumer = new ListenerContext(connectionFactory, (queue) -> ListenerSettings.DEFAULTS,
				job)
			.start()) {
			say("ready");
			BufferedReader input = new BufferedReader(new InputStreamReader(System.in));
			for (String line = input.readLine(); line != null; line = input.readLine()) {
				if (line.equals("stale")) {
					say("stale ack=" + stale(consumer.meters, "ack") + " extend=" + stale(consumer.meters, "extend"));
				}
			}
		}
		finally {
			connectionFactory.destroy();
		}
	}

	/** The count of {@code baton.queue.stale} for one operation ({@code ack}, {@code extend}). */
	static long stale(MeterRegistry meters, String operation) {
		Counter counter = meters.find("baton.queue.stale").tag("operation", operation).counter();
		return (counter != null) ? (long) counter.count() : 0;
	}

	private static synchronized void say(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
