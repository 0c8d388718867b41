package dev.baton.benchmarks;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;

/**
 * A minimal Spring Boot application, the way users get Baton: its auto-configuration on a
 * Lettuce connection to the benchmark's Redis server. Each Baton client under test starts one.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class BatonApplication {

	/**
	 * Starts an application.
	 * @param redisUrl the server
	 * @param beans registers the benchmark's own beans (e.g. a task handler)
	 * @param properties extra {@code name=value} properties
	 * @return the running application; the caller closes it
	 */
	public static ConfigurableApplicationContext start(String redisUrl,
			ApplicationContextInitializer<GenericApplicationContext> beans, String... properties) {
		List<String> all = new ArrayList<>(List.of("spring.data.redis.url=" + redisUrl, "spring.main.banner-mode=off",
				"spring.main.log-startup-info=false"));
		all.addAll(List.of(properties));
		return new SpringApplicationBuilder(BatonApplication.class).web(WebApplicationType.NONE)
			.registerShutdownHook(false)
			.initializers(beans)
			.properties(all.toArray(String[]::new))
			.run();
	}

}
