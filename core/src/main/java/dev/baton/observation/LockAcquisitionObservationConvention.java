package dev.baton.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags the observation of a lock acquisition; implement it to replace the default. */
public interface LockAcquisitionObservationConvention extends ObservationConvention<LockAcquisitionContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockAcquisitionContext;
	}

}
