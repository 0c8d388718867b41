package dev.baton.autoconfigure.redis;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Wiring only: no Redis or sentinel needs to answer. */
class BatonPrimarySwitchAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(DataRedisAutoConfiguration.class, BatonPrimarySwitchAutoConfiguration.class));

	@Test
	void watchesTheSentinelsWhenRedisIsFoundThroughThem() {
		this.runner
			.withPropertyValues("spring.data.redis.sentinel.master=mymaster",
					"spring.data.redis.sentinel.nodes=127.0.0.1:1")
			.run((context) -> assertThat(context.getBean(PrimarySwitches.class).watch()).isPresent());
	}

	@Test
	void canBeTurnedOff() {
		this.runner
			.withPropertyValues("spring.data.redis.sentinel.master=mymaster",
					"spring.data.redis.sentinel.nodes=127.0.0.1:1", "baton.sentinel.follow-switches=false")
			.run((context) -> assertThat(context).doesNotHaveBean(PrimarySwitches.class));
	}

	@Test
	void refusesAnUnknownKeyOfItsGroup() {
		this.runner.withPropertyValues("baton.sentinel.follow-switchs=false")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("baton.sentinel.follow-switchs"));
	}

	@Test
	void watchesNothingForAStandaloneRedis() {
		this.runner.run((context) -> assertThat(context.getBean(PrimarySwitches.class).watch()).isEmpty());
	}

}
