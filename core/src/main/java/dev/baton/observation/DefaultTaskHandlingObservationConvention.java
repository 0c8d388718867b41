package dev.baton.observation;

import java.util.Locale;

import dev.baton.observation.BatonObservation.TaskKeys;
import io.micrometer.common.KeyValues;

/**
 * The default convention of handling: named {@code baton.queue.handle}, tagged with the queue and
 * the outcome; the task id and attempt are high-cardinality values.
 */
public class DefaultTaskHandlingObservationConvention implements TaskHandlingObservationConvention {

	/** A shared instance. */
	public static final DefaultTaskHandlingObservationConvention INSTANCE = new DefaultTaskHandlingObservationConvention();

	@Override
	public String getName() {
		return "baton.queue.handle";
	}

	@Override
	public String getContextualName(TaskHandlingContext context) {
		return "handle " + context.getQueue();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(TaskHandlingContext context) {
		return KeyValues.of(TaskKeys.QUEUE.withValue(context.getQueue()),
				TaskKeys.OUTCOME.withValue(context.getOutcome().name().toLowerCase(Locale.ROOT)));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(TaskHandlingContext context) {
		return KeyValues.of(TaskKeys.TASK_ID.withValue(context.getDelivery().id()),
				TaskKeys.ATTEMPT.withValue(Integer.toString(context.getDelivery().attempt())));
	}

}
