package dev.baton.observation;

import java.util.Locale;

import dev.baton.observation.BatonObservation.LockKeys;
import io.micrometer.common.KeyValues;

/**
 * The default convention of lock acquisitions: named {@code baton.lock.acquire}, tagged with the
 * lock's group and the outcome; the full name and the fencing token are high-cardinality values,
 * for spans only.
 */
public class DefaultLockAcquisitionObservationConvention implements LockAcquisitionObservationConvention {

	/** A shared instance. */
	public static final DefaultLockAcquisitionObservationConvention INSTANCE = new DefaultLockAcquisitionObservationConvention();

	@Override
	public String getName() {
		return "baton.lock.acquire";
	}

	@Override
	public String getContextualName(LockAcquisitionContext context) {
		return "acquire " + context.getGroup();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockAcquisitionContext context) {
		return KeyValues.of(LockKeys.LOCK.withValue(context.getGroup()),
				LockKeys.OUTCOME.withValue(context.getOutcome().name().toLowerCase(Locale.ROOT)));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockAcquisitionContext context) {
		KeyValues values = KeyValues.of(LockKeys.NAME.withValue(context.getLockName()));
		Long token = context.getFencingToken();
		return (token != null) ? values.and(LockKeys.FENCING_TOKEN.withValue(token.toString())) : values;
	}

}
