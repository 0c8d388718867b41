package dev.baton.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags the observation of a task's handling; implement it to replace the default. */
public interface TaskHandlingObservationConvention extends ObservationConvention<TaskHandlingContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof TaskHandlingContext;
	}

}
