package dev.baton.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/** The observations Baton makes, with the key values of their default conventions. */
public enum BatonObservation implements ObservationDocumentation {

	/** Acquiring a lock, from the first attempt until it is held, the wait ran out or it failed. */
	LOCK_ACQUISITION {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLockAcquisitionObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { LockKeys.LOCK, LockKeys.OUTCOME };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { LockKeys.NAME, LockKeys.FENCING_TOKEN };
		}

	},

	/** Scheduling tasks: one call of {@code schedule}, {@code scheduleAt} or {@code scheduleAll}. */
	TASK_SCHEDULING {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultTaskSchedulingObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { TaskKeys.QUEUE };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { TaskKeys.TASK_ID, TaskKeys.TASK_COUNT };
		}

	},

	/** Handling a task in a {@code @DelayedTask} method, until the task is settled. */
	TASK_HANDLING {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultTaskHandlingObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { TaskKeys.QUEUE, TaskKeys.OUTCOME };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { TaskKeys.TASK_ID, TaskKeys.ATTEMPT };
		}

	};

	/** Key names of lock observations. */
	public enum LockKeys implements KeyName {

		/** The lock's group: the annotation's name, never the evaluated key (low cardinality). */
		LOCK {

			@Override
			public String asString() {
				return "lock";
			}

		},

		/** {@code acquired}, {@code timeout} or {@code error}. */
		OUTCOME {

			@Override
			public String asString() {
				return "outcome";
			}

		},

		/** The full lock name, with the evaluated key (high cardinality). */
		NAME {

			@Override
			public String asString() {
				return "baton.lock.name";
			}

		},

		/** The fencing token of the acquisition, when acquired (high cardinality). */
		FENCING_TOKEN {

			@Override
			public String asString() {
				return "baton.lock.fencing-token";
			}

		}

	}

	/** Key names of task observations. */
	public enum TaskKeys implements KeyName {

		/** The queue name. */
		QUEUE {

			@Override
			public String asString() {
				return "queue";
			}

		},

		/** How handling ended: {@code success}, {@code retry}, {@code dead} or {@code unsettled}. */
		OUTCOME {

			@Override
			public String asString() {
				return "outcome";
			}

		},

		/** The task id (high cardinality); of a single task when scheduling. */
		TASK_ID {

			@Override
			public String asString() {
				return "baton.task.id";
			}

		},

		/** The number of tasks one scheduling call stored. */
		TASK_COUNT {

			@Override
			public String asString() {
				return "baton.task.count";
			}

		},

		/** The attempt number, 1 for the first delivery. */
		ATTEMPT {

			@Override
			public String asString() {
				return "baton.task.attempt";
			}

		}

	}

}
