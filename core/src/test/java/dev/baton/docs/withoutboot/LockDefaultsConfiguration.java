package dev.baton.docs.withoutboot;

import java.time.Duration;

import dev.baton.lock.annotation.DistributedLockAdvisorCustomizer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** docs/getting-started.md, "Without Spring Boot": the default wait time, as the page shows it. */
@Configuration(proxyBeanMethods = false)
public class LockDefaultsConfiguration {

	@Bean
	DistributedLockAdvisorCustomizer lockDefaults() {
		return (advisor) -> advisor.setDefaultWaitTime(Duration.ofSeconds(2));
	}

}
