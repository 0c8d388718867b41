package dev.baton.queue;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A task to schedule with {@link DelayQueue#scheduleAll(java.util.Collection)}.
 *
 * @param id the task id, or {@code null} to generate one
 * @param payload the payload
 * @param delay how long from now (Redis time) the task falls due
 * @param <T> the payload type
 */
public record NewTask<T>(@Nullable String id, T payload, Duration delay) {

	/**
	 * A task with a generated id.
	 * @param payload the payload
	 * @param delay how long from now the task falls due
	 * @param <T> the payload type
	 * @return the task
	 */
	public static <T> NewTask<T> of(T payload, Duration delay) {
		return new NewTask<>(null, payload, delay);
	}

	/**
	 * A task with the given id.
	 * @param id the task id
	 * @param payload the payload
	 * @param delay how long from now the task falls due
	 * @param <T> the payload type
	 * @return the task
	 */
	public static <T> NewTask<T> of(String id, T payload, Duration delay) {
		return new NewTask<>(id, payload, delay);
	}

	/** Without the payload, which may carry personal data into logs and exception messages. */
	@Override
	public String toString() {
		return "NewTask[id=" + this.id + ", delay=" + this.delay + "]";
	}

}
