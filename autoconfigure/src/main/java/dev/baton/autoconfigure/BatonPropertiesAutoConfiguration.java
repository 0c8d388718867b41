package dev.baton.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Checks Baton's properties as a whole, whichever of its parts are enabled: a key under
 * {@code baton.} outside Baton's groups fails start-up (see {@link UnknownBatonPropertyFailureAnalyzer}).
 */
@AutoConfiguration
public final class BatonPropertiesAutoConfiguration {

	// Static: a bean factory post-processor is created before the configuration class.
	@Bean
	static UnknownBatonPropertyGroupCheck batonPropertyGroupCheck(Environment environment) {
		return new UnknownBatonPropertyGroupCheck(environment);
	}

}
