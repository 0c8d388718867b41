package dev.baton.observation;

import dev.baton.observation.BatonObservation.TaskKeys;
import io.micrometer.common.KeyValues;

/**
 * The default convention of scheduling: named {@code baton.queue.schedule}, tagged with the
 * queue; the task id (of a single task) and the number of tasks are high-cardinality values.
 */
public class DefaultTaskSchedulingObservationConvention implements TaskSchedulingObservationConvention {

	/** A shared instance. */
	public static final DefaultTaskSchedulingObservationConvention INSTANCE = new DefaultTaskSchedulingObservationConvention();

	@Override
	public String getName() {
		return "baton.queue.schedule";
	}

	@Override
	public String getContextualName(TaskSchedulingContext context) {
		return "schedule " + context.getQueue();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(TaskSchedulingContext context) {
		return KeyValues.of(TaskKeys.QUEUE.withValue(context.getQueue()));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(TaskSchedulingContext context) {
		KeyValues values = KeyValues.of(TaskKeys.TASK_COUNT.withValue(Integer.toString(context.getTaskIds().size())));
		String id = context.getTaskId();
		return (id != null) ? values.and(TaskKeys.TASK_ID.withValue(id)) : values;
	}

}
