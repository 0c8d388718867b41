package dev.baton.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags the observation of scheduling; implement it to replace the default. */
public interface TaskSchedulingObservationConvention extends ObservationConvention<TaskSchedulingContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof TaskSchedulingContext;
	}

}
