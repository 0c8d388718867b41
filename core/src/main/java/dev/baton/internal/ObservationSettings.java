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
	 * The registry a component observes in: the one the application gave, else one that records
	 * timers in the given meter registry (the timers Baton documents come from observations),
	 * else none.
	 * @param observationRegistry the application's observation registry, or {@code null}
	 * @param meterRegistry the application's meter registry, or {@code null}
	 * @return the registry to use
	 */
	public static ObservationRegistry registry(@Nullable ObservationRegistry observationRegistry,
			@Nullable MeterRegistry meterRegistry) {
		if (observationRegistry != null) {
			return observationRegistry;
		}
		return (meterRegistry != null) ? recordingTimers(meterRegistry) : ObservationRegistry.NOOP;
	}

	// Touches Micrometer's core only when a meter registry was given, so that it stays optional.
	private static ObservationRegistry recordingTimers(MeterRegistry meterRegistry) {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meterRegistry));
		return registry;
	}

}
