package dev.baton.queue;

import java.time.Duration;
import java.time.Instant;

/**
 * What a {@link dev.baton.queue.annotation.DelayedTask @DelayedTask} handler may know about the
 * task it handles: declare a parameter of this type to receive it.
 */
public interface TaskContext {

	/** The queue name. */
	String queue();

	/** The task id: use it to make the handler idempotent. */
	String id();

	/** The attempt number, {@code 1} for the first delivery. */
	int attempt();

	/** When the task fell due. */
	Instant dueAt();

	/** When the task was scheduled. */
	Instant scheduledAt();

	/**
	 * Keep the task invisible to other consumers for {@code timeout} from now. The container
	 * already extends the visibility of running handlers; call this to ask for more at once.
	 * @param timeout the new visibility timeout, positive
	 */
	void extendVisibility(Duration timeout);

}
