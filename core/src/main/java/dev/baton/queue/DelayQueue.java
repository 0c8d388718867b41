package dev.baton.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LockLease;
import org.jspecify.annotations.Nullable;

/**
 * A named queue of tasks that fall due after a delay, stored in Redis and shared by every
 * instance that uses the same name. Due times are measured on the Redis server's clock.
 *
 * <p>Tasks are delivered at least once: a delivery that is not acknowledged within its
 * visibility timeout (because the consumer died) is delivered again. Task ids deduplicate: a
 * task cannot be scheduled twice while it is scheduled or in flight.
 *
 * @param <T> the payload type, serialised as JSON
 */
public interface DelayQueue<T> {

	/**
	 * The longest delay accepted, 36,500 days (about 100 years); a longer one is an
	 * {@link IllegalArgumentException}. Due times are kept as milliseconds in a Redis score, which
	 * is exact only below 2<sup>53</sup>.
	 */
	Duration MAX_DELAY = Duration.ofDays(36_500);

	/** The latest due time accepted, the end of the year 9999; a later one is an {@link IllegalArgumentException}. */
	Instant MAX_DUE_AT = Instant.parse("9999-12-31T23:59:59.999Z");

	/**
	 * The longest visibility timeout accepted, 12 hours, for a claim or an extension; a longer one
	 * is an {@link IllegalArgumentException}. A delivery whose consumer died comes back at the
	 * latest this long after its last extension.
	 */
	Duration MAX_VISIBILITY_TIMEOUT = Duration.ofHours(12);

	/**
	 * The most tasks or dead letters one {@link #peek(int)} or {@link #deadLetters(int)} returns,
	 * 1,000; a larger limit is an {@link IllegalArgumentException}. Each reads about as many
	 * payloads as it returns, whatever the number of partitions.
	 */
	int MAX_PEEK = 1000;

	/**
	 * The most tasks one page of {@link #dueBetween} returns, 1,000; a larger limit is an
	 * {@link IllegalArgumentException}. A page reads at most this many payloads from each
	 * partition.
	 */
	int MAX_PAGE_SIZE = 1000;

	/** The queue name. */
	String name();

	/**
	 * Schedule a payload under a generated id.
	 * @param payload the payload, not null
	 * @param delay how long from now (Redis time) the task falls due, not negative
	 * @return the generated task id
	 * @throws PartiallyScheduledException if Redis failed or did not answer in time: the task may
	 * or may not be stored, and the exception carries it under its generated id, so that scheduling
	 * it again under that id cannot store it twice
	 */
	String schedule(T payload, Duration delay);

	/**
	 * Schedule a payload under the given id, unless a task with that id is already scheduled or
	 * in flight.
	 * @param id the task id, not blank, at most 256 characters
	 * @param payload the payload, not null
	 * @param delay how long from now (Redis time) the task falls due, not negative
	 * @return {@code true} if scheduled, {@code false} (and nothing changed) for a duplicate id
	 */
	boolean schedule(String id, T payload, Duration delay);

	/**
	 * Schedule a payload under the given id to fall due at an instant, unless a task with that id
	 * is already scheduled or in flight. An instant in the past means due now.
	 * @param id the task id, not blank, at most 256 characters
	 * @param payload the payload, not null
	 * @param dueAt when the task falls due
	 * @return {@code true} if scheduled, {@code false} (and nothing changed) for a duplicate id
	 */
	boolean scheduleAt(String id, T payload, Instant dueAt);

	/**
	 * Schedule a payload under a generated id and give it the lock of {@code lease} until it ends:
	 * see {@link #schedule(String, Object, Duration, LockLease)}.
	 * @param payload the payload, not null
	 * @param delay how long from now (Redis time) the task falls due, not negative
	 * @param lease a lease this caller holds; handed over to the task
	 * @return the generated task id
	 * @throws PartiallyScheduledException if Redis failed or did not answer in time: the task may
	 * or may not be stored (under the id it carries), and the lease is handed over either way
	 * @throws LeaseLostException if the lease no longer held its lock: nothing was scheduled
	 * @throws UnsupportedOperationException if this queue was built without a lock manager
	 */
	default String schedule(T payload, Duration delay, LockLease lease) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot schedule tasks that hold a lock");
	}

	/**
	 * Schedule a payload under the given id, unless that id is taken, and give it the lock of
	 * {@code lease} until it ends: the lease is {@linkplain LockLease#handOver() handed over} to the
	 * task, which keeps the lock while it waits (for its delay plus the lease's lease time, or the
	 * watchdog lease when it was taken without one) and while a consumer holds it, across retries,
	 * and releases it when it ends for good: acknowledged, dead-lettered or cancelled. A handler
	 * reads it from {@link TaskContext#lease()}. When the task waits longer than that (no consumer
	 * claimed it in time) or Redis loses the lock, the task still runs, its lease invalid and the
	 * loss reported as a {@code LockLostEvent}.
	 * @param id the task id, not blank, at most 256 characters
	 * @param payload the payload, not null
	 * @param delay how long from now (Redis time) the task falls due, not negative
	 * @param lease a lease this caller holds; handed over to the task
	 * @return {@code true} if scheduled; {@code false} for a duplicate id, and then the lease is
	 * this caller's again, as before
	 * @throws LeaseLostException if the lease no longer held its lock: nothing was scheduled
	 * @throws QueueUnavailableException if Redis failed or did not answer in time: the task may or
	 * may not be stored, and the lease is handed over either way (a lock whose task was not stored
	 * runs out within the lease it had)
	 * @throws UnsupportedOperationException if this queue was built without a lock manager
	 */
	default boolean schedule(String id, T payload, Duration delay, LockLease lease) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot schedule tasks that hold a lock");
	}

	/**
	 * Schedule many tasks in one round trip per 1,000. Tasks whose id is already scheduled or in
	 * flight are left out. Every task is checked before the first is stored, so bad input stores
	 * nothing.
	 * @param tasks the tasks to schedule
	 * @return the ids of the tasks that were scheduled, in the given order
	 * @throws PartiallyScheduledException if Redis failed or did not answer in time for some or
	 * all of the tasks; it lists the ids stored and carries the other tasks, under their ids
	 * (generated ones included), to schedule again
	 */
	List<String> scheduleAll(Collection<NewTask<T>> tasks);

	/**
	 * Move a still-scheduled task to fall due {@code delay} from now.
	 * @param id the task id
	 * @param delay the new delay, not negative
	 * @return {@code true} if the task was scheduled (not yet claimed) and was moved
	 */
	boolean reschedule(String id, Duration delay);

	/**
	 * Cancel a scheduled task: its data is deleted and it will never be delivered.
	 * @param id the task id
	 * @return {@code true} only if the task was waiting and is now gone; {@code false} if it is
	 * unknown, already in flight or done
	 */
	boolean cancel(String id);

	/**
	 * Look up a task that is scheduled or in flight; one whose payload cannot be read is returned
	 * with a {@code null} payload and its stored JSON in {@link ScheduledTask#unreadablePayload()}.
	 * @param id the task id
	 * @return the task, or empty if unknown or done
	 */
	Optional<ScheduledTask<T>> find(String id);

	/**
	 * The earliest waiting tasks, without claiming them. A task whose payload cannot be read is
	 * returned too, with a {@code null} payload and its stored JSON in
	 * {@link ScheduledTask#unreadablePayload()}.
	 * @param max the maximum number of tasks to return, 1 to {@link #MAX_PEEK}
	 * @return the tasks in due order
	 */
	List<ScheduledTask<T>> peek(int max);

	/**
	 * The waiting tasks (neither in flight nor dead letters) that fall due in a window, one page at
	 * a time, without claiming them: by due time, then by id in Unicode code point order, across
	 * every partition of a partitioned queue. A task whose payload cannot be read is listed too, with
	 * a {@code null} payload and its stored JSON in {@link ScheduledTask#unreadablePayload()}.
	 *
	 * <p>The next page starts after the last task of this one (its due time and id), so a task that
	 * is not changed while the pages are read is listed exactly once; one scheduled, moved or claimed
	 * meanwhile may be listed or not. Due times are whole milliseconds: the window's ends are rounded
	 * up to them.
	 *
	 * <pre class="code">
	 * String token = null;
	 * do {
	 *     TaskPage&lt;Order&gt; page = orders.dueBetween(from, to, 100, token);
	 *     page.tasks().forEach(this::show);
	 *     token = page.nextPageToken();
	 * }
	 * while (token != null);
	 * </pre>
	 * @param from the earliest due time listed
	 * @param to the end of the window, left out: tasks due at {@code to} or later are not listed
	 * @param limit the most tasks on the page, 1 to {@link #MAX_PAGE_SIZE}
	 * @param pageToken {@code null} for the first page, else the {@link TaskPage#nextPageToken()} of
	 * the page before, for the same queue and window
	 * @return the page, whose token is {@code null} if it is the last
	 * @throws IllegalArgumentException before anything is read, if {@code from} is after {@code to},
	 * the limit is out of range, or the page token is of another queue or window, or not a page token
	 */
	TaskPage<T> dueBetween(Instant from, Instant to, int limit, @Nullable String pageToken);

	/**
	 * How many waiting tasks (neither in flight nor dead letters) fall due in a window, across every
	 * partition; one round trip, partitions counted each at its own instant.
	 * @param from the earliest due time counted
	 * @param to the end of the window, left out
	 * @return the number of tasks
	 * @throws IllegalArgumentException if {@code from} is after {@code to}
	 */
	long countDueBetween(Instant from, Instant to);

	/**
	 * Claim up to {@code max} due tasks for manual consumption. Each must be
	 * {@linkplain Delivery#ack() acknowledged}, retried or dead-lettered before its visibility
	 * timeout, or it is delivered again.
	 * @param max the maximum number of tasks to claim, positive
	 * @return the claimed deliveries in due order, empty if none is due
	 */
	List<Delivery<T>> poll(int max);

	/** Counts of the queue's tasks by state. */
	QueueStats stats();

	/**
	 * The most recent dead letters.
	 * @param max the maximum number to return, 1 to {@link #MAX_PEEK}
	 * @return dead letters, most recent first
	 */
	List<DeadLetter<T>> deadLetters(int max);

	/**
	 * Put a dead letter back on the queue, due now, with its attempts reset.
	 * @param id the task id
	 * @return {@code true} if a dead letter with that id was moved back
	 */
	boolean redrive(String id);

	/**
	 * Delete a dead letter for good.
	 * @param id the task id
	 * @return {@code true} if a dead letter with that id was deleted
	 */
	boolean purgeDeadLetter(String id);

}
