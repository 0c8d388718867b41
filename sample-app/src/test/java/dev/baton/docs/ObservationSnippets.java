package dev.baton.docs;

import dev.baton.observation.DefaultTaskHandlingObservationConvention;
import dev.baton.observation.TaskHandlingContext;
import dev.baton.observation.TaskHandlingObservationConvention;
import io.micrometer.common.KeyValues;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The code of docs/observability.md, compiled. */
class ObservationSnippets {

	@Configuration
	static class Conventions {

		@Bean
		TaskHandlingObservationConvention tenantTaggedHandling() {
			return new DefaultTaskHandlingObservationConvention() {

				@Override
				public KeyValues getLowCardinalityKeyValues(TaskHandlingContext context) {
					return super.getLowCardinalityKeyValues(context).and("region", "eu-west");
				}

			};
		}

	}

}
