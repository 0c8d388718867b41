package dev.baton.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A typo under {@code baton.*} fails start-up, and Boot's failure report (as the application's
 * log shows it) names the key and the known key it is closest to.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class UnknownBatonPropertyTests {

	@Test
	void lockTypoFailsStartUpSuggestingTheKnownKey(RedisServer server, CapturedOutput output) {
		String report = startupReport(server, output, "baton.lock.lease-tme=10s");

		assertThat(report).contains("baton.lock.lease-tme")
			.contains("did you mean `lease-time`?")
			.doesNotContain("Bindable@");
	}

	@Test
	void nestedLockTypoSuggestsTheNestedKey(RedisServer server, CapturedOutput output) {
		String report = startupReport(server, output, "baton.lock.replica-acknowledgement.replica=1");

		assertThat(report).contains("did you mean `replica-acknowledgement.replicas`?");
	}

	@Test
	void queueTyposSuggestTheKnownKeyWithTheQueueName(RedisServer server, CapturedOutput output) {
		String report = startupReport(server, output, "baton.queue.max-atempts=3",
				"baton.queue.queues.orders.concurency=6");

		assertThat(report).contains("did you mean `max-attempts`?")
			.contains("did you mean `queues.orders.concurrency`?")
			.doesNotContain("Bindable@");
	}

	@Test
	void groupTypoFailsStartUpSuggestingTheFullKey(RedisServer server, CapturedOutput output) {
		String report = startupReport(server, output, "baton.lokc.lease-time=10s");

		assertThat(report).contains("baton.lokc.lease-time").contains("did you mean `baton.lock.lease-time`?");
	}

	@Test
	void keyCloseToNoneListsTheKnownKeys(RedisServer server, CapturedOutput output) {
		String report = startupReport(server, output, "baton.lock.colour=red");

		assertThat(report).contains("baton.lock.colour").doesNotContain("did you mean").contains("lease-time, ");
	}

	/** What the failed start-up logged from the failure analysis on. */
	private static String startupReport(RedisServer server, CapturedOutput output, String... properties) {
		List<String> all = new ArrayList<>(List.of(properties));
		all.add("spring.data.redis.host=" + server.host());
		all.add("spring.data.redis.port=" + server.port());
		SpringApplicationBuilder application = new SpringApplicationBuilder(App.class)
			.web(WebApplicationType.NONE)
			.properties(all.toArray(String[]::new));

		assertThatException().isThrownBy(application::run);
		String log = output.getAll();
		int start = log.lastIndexOf("APPLICATION FAILED TO START");
		assertThat(start).as("failure report in " + log).isNotNegative();
		return log.substring(start);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
