package dev.baton.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Where a component records its observations, and the application's convention for them, if any.
 *
 * @param registry the registry, {@link ObservationRegistry#NOOP} when nothing observes
 * @param convention the application's convention, or {@code null} for Baton's default
 * @param <C> the convention type
 */
public record ObservationSettings<C extends ObservationConvention<?>>(ObservationRegistry registry,
		@Nullable C convention) {

	/** Observations that record nothing. */
	public static <C extends ObservationConvention<?>> ObservationSettings<C> none() {
		return new ObservationSettings<>(ObservationRegistry.NOOP, null);
	}

	/**
	 * A registry whose observations record timers, for an application that gave Baton a
	 * {@link MeterRegistry} but no {@link ObservationRegistry}: the timers Baton documents come
	 * from observations. Only called with Micrometer's core on the class path.
	 * @param meterRegistry the meter registry
	 * @return a registry with a meter handler
	 */
	public static ObservationRegistry recordingTimers(MeterRegistry meterRegistry) {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meterRegistry));
		return registry;
	}

}
