package dev.baton.harness;

import java.util.function.LongConsumer;

/** Applies the faults of a schedule's server track to whatever Redis a run uses. */
interface ServerFaults {

	/**
	 * Applies a fault and returns once it has ended.
	 * @param fault a fault of the server track
	 * @param sleepUntil sleeps until the given time, ms from the run's start
	 * @throws RuntimeException if the fault could not be applied; the injector records it
	 */
	void apply(Fault fault, LongConsumer sleepUntil);

}
