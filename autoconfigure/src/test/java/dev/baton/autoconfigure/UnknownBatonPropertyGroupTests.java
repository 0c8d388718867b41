package dev.baton.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A typo in the group of a {@code baton.*} key ({@code baton.lokc.lease-time}), which no properties
 * class binds, fails start-up with the same report as a typo within a group; keys of Baton's
 * groups and keys that only start like Baton's are left alone. Needs no Redis: the check runs
 * before any bean is created.
 */
class UnknownBatonPropertyGroupTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatonPropertiesAutoConfiguration.class));

	@Test
	void typoInTheGroupFailsStartUpSuggestingTheKnownKey() {
		this.runner.withPropertyValues("baton.lokc.lease-time=10s").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new UnknownBatonPropertyFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("baton.lokc.lease-time (")
				.contains("did you mean `baton.lock.lease-time`?");
			assertThat(analysis.getAction()).contains("baton.lock", "baton.queue", "baton.sentinel");
		});
	}

	@Test
	void groupCloseToNoneIsReportedWithoutASuggestion() {
		this.runner.withPropertyValues("baton.colour=red", "baton.queues.queues.orders.concurency=6")
			.run((context) -> {
				FailureAnalysis analysis = new UnknownBatonPropertyFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("baton.colour (")
					.doesNotContain("baton.colour (test): did you mean")
					.contains("baton.queues.queues.orders.concurency")
					.contains("did you mean `baton.queue.queues.orders.concurrency`?");
			});
	}

	@Test
	void keysOfBatonsGroupsAndOthersAreLeftAlone() {
		this.runner
			.withPropertyValues("baton.lock.lease-time=10s", "baton.queue.max-attempts=3",
					"baton.sentinel.follow-switches=false", "batonista.x=1", "spring.data.redis.host=example.org")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void everyBatonPropertiesClassIsAGroup() {
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
		scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
		List<String> prefixes = new ArrayList<>();
		for (BeanDefinition candidate : scanner.findCandidateComponents("dev.baton")) {
			String prefix = MergedAnnotations
				.from(ClassUtils.resolveClassName(candidate.getBeanClassName(), null))
				.get(ConfigurationProperties.class)
				.getString("prefix");
			if (prefix.startsWith("baton.")) {
				prefixes.add(prefix);
			}
		}

		assertThat(BatonPropertyGroups.prefixes()).containsExactlyInAnyOrderElementsOf(prefixes);
	}

}
