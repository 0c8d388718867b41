package dev.baton.observation;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/** What an observation of a lock acquisition knows. */
public class LockAcquisitionContext extends Observation.Context {

	private final String lockName;

	private final String group;

	private Outcome outcome = Outcome.IN_PROGRESS;

	private @Nullable Long fencingToken;

	/**
	 * Create a context.
	 * @param lockName the full lock name, with its evaluated key
	 * @param group the lock's group as meters tag it (the annotation's name)
	 */
	public LockAcquisitionContext(String lockName, String group) {
		this.lockName = lockName;
		this.group = group;
	}

	/** The full lock name, with its evaluated key: high cardinality. */
	public String getLockName() {
		return this.lockName;
	}

	/** The lock's group as meters tag it: low cardinality. */
	public String getGroup() {
		return this.group;
	}

	/**
	 * How the acquisition ended: {@link Outcome#IN_PROGRESS} while it waits (the tag of the
	 * long-task timer of acquisitions under way), {@link Outcome#ERROR} once it failed.
	 */
	public Outcome getOutcome() {
		return (this.outcome == Outcome.IN_PROGRESS && getError() != null) ? Outcome.ERROR : this.outcome;
	}

	/**
	 * The fencing token of the acquisition, or {@code null} unless acquired with one: a lock
	 * taken at once issues its token only when the holder asks for it.
	 */
	public @Nullable Long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Record that the lock was acquired.
	 * @param fencingToken the acquisition's fencing token, or {@code null} if it issued none yet
	 */
	public void acquired(@Nullable Long fencingToken) {
		this.outcome = Outcome.ACQUIRED;
		this.fencingToken = fencingToken;
	}

	/** Record that the wait ran out before the lock was free. */
	public void timedOut() {
		this.outcome = Outcome.TIMEOUT;
	}

	/** How an acquisition ended. */
	public enum Outcome {

		/** The lock is held. */
		ACQUIRED,

		/** The wait time ran out while another owner held the lock. */
		TIMEOUT,

		/** Redis failed or could not be reached, or the caller was interrupted. */
		ERROR,

		/** Not ended yet. */
		IN_PROGRESS

	}

}
