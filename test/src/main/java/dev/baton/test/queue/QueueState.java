package dev.baton.test.queue;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import dev.baton.internal.DueWindow;
import dev.baton.lock.LeaseToken;
import dev.baton.queue.QueueStats;
import dev.baton.queue.spi.WakeSignal;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The tasks of one queue name, shared by every {@link InMemoryDelayQueues} instance made from one
 * another: what Redis holds for a queue, with payloads as JSON. One monitor guards it all, so each
 * method is atomic, as each Lua script is; wake-up signals go out after the monitor is released.
 */
final class QueueState {

	private static final Log logger = LogFactory.getLog(QueueState.class);

	/** Due order; tasks due at the same instant in the order they were put in line. */
	private static final Comparator<Task> DUE_ORDER = Comparator.comparing((Task task) -> task.dueAt)
		.thenComparingLong((task) -> task.sequence);

	private final String name;

	private final InstantSource clock;

	/** Tasks that wait or are in flight, by id. */
	private final Map<String, Task> tasks = new HashMap<>();

	/** The waiting tasks in due order. A task's due time and sequence change only while it is out of this set. */
	private final TreeSet<Task> waiting = new TreeSet<>(DUE_ORDER);

	/** Dead letters by id, the most recent last. */
	private final LinkedHashMap<String, Dead> dead = new LinkedHashMap<>();

	private final List<Consumer<WakeSignal>> listeners = new CopyOnWriteArrayList<>();

	/** Counts places in line and delivery tokens, as the Redis sequence does. */
	private long sequence;

	QueueState(String name, InstantSource clock) {
		this.name = name;
		this.clock = clock;
	}

	/** The clock's time in whole milliseconds, as Redis keeps times. */
	Instant now() {
		return Instant.ofEpochMilli(this.clock.instant().toEpochMilli());
	}

	/**
	 * Puts in line the tasks whose id is neither waiting nor in flight (nor taken by an earlier task
	 * of the same call).
	 * @return per task, whether it was scheduled
	 */
	List<Boolean> schedule(List<NewEntry> entries) {
		List<Boolean> results = new ArrayList<>(entries.size());
		boolean wake = false;
		synchronized (this) {
			Instant now = now();
			for (NewEntry entry : entries) {
				if (this.tasks.containsKey(entry.id())) {
					results.add(false);
					continue;
				}
				Instant dueAt = (entry.dueAt() != null) ? entry.dueAt() : now.plusMillis(entry.delayMillis());
				wake |= fallsDueFirst(dueAt);
				Task task = new Task(entry.id(), entry.json(), now, dueAt, entry.lease());
				this.tasks.put(task.id, task);
				line(task);
				results.add(true);
			}
		}
		wakeIf(wake);
		return results;
	}

	/** Whether a task due then would fall due before every waiting task: Redis wakes consumers then. */
	private boolean fallsDueFirst(Instant dueAt) {
		return this.waiting.isEmpty() || dueAt.isBefore(this.waiting.first().dueAt);
	}

	/** Puts a task in line at the end of those due at its due time. */
	private void line(Task task) {
		task.sequence = ++this.sequence;
		task.visibleUntil = null;
		this.waiting.add(task);
	}

	/** Deletes a waiting task; one in flight or unknown stays as it is. Returns the task deleted, or {@code null}. */
	@Nullable Stored cancel(String id) {
		synchronized (this) {
			Task task = this.tasks.get(id);
			if (task == null || task.visibleUntil != null) {
				return null;
			}
			this.waiting.remove(task);
			this.tasks.remove(id);
			return task.stored();
		}
	}

	/**
	 * Moves a waiting task to fall due {@code delayMillis} from now, after the tasks due then.
	 * Returns the task moved, or {@code null}.
	 */
	@Nullable Stored reschedule(String id, long delayMillis) {
		boolean wake;
		Stored moved;
		synchronized (this) {
			Task task = this.tasks.get(id);
			if (task == null || task.visibleUntil != null) {
				return null;
			}
			this.waiting.remove(task);
			task.dueAt = now().plusMillis(delayMillis);
			wake = fallsDueFirst(task.dueAt);
			line(task);
			moved = task.stored();
		}
		wakeIf(wake);
		return moved;
	}

	/**
	 * Moves every waiting task's due time earlier, keeping the order; tasks in flight stay.
	 * @param byMillis how far, or {@code null} for as far as the last waiting task needs
	 * @return how many waiting tasks are due now
	 */
	long advance(@Nullable Long byMillis) {
		long due;
		boolean wake;
		synchronized (this) {
			Instant now = now();
			long by = (byMillis != null) ? byMillis
					: this.waiting.isEmpty() ? 0 : Math.max(0, this.waiting.last().dueAt.toEpochMilli() - now.toEpochMilli());
			List<Task> moved = new ArrayList<>(this.waiting);
			this.waiting.clear();
			for (Task task : moved) {
				task.dueAt = Instant.ofEpochMilli(Math.max(0, task.dueAt.toEpochMilli() - by));
				this.waiting.add(task);
			}
			wake = !moved.isEmpty();
			due = countDue(now);
		}
		wakeIf(wake);
		return due;
	}

	@Nullable Stored find(String id) {
		synchronized (this) {
			Task task = this.tasks.get(id);
			return (task != null) ? task.stored() : null;
		}
	}

	/** The earliest waiting tasks, in due order. */
	List<Stored> peek(int max) {
		synchronized (this) {
			return this.waiting.stream().limit(max).map(Task::stored).toList();
		}
	}

	/**
	 * The first {@code max} waiting tasks due in a window after a cursor, in the window's order (by
	 * due time, then id; see {@link DueWindow}).
	 */
	List<Stored> dueBetween(DueWindow.Range range, DueWindow.@Nullable Cursor after, int max) {
		synchronized (this) {
			return this.waiting.stream()
				.filter((task) -> range.contains(task.dueAt.toEpochMilli()) && cursor(task).isAfter(after))
				.sorted(Comparator.comparing(QueueState::cursor, DueWindow.ORDER))
				.limit(max)
				.map(Task::stored)
				.toList();
		}
	}

	/** How many waiting tasks are due in a window. */
	long countDueBetween(DueWindow.Range range) {
		synchronized (this) {
			return this.waiting.stream().filter((task) -> range.contains(task.dueAt.toEpochMilli())).count();
		}
	}

	private static DueWindow.Cursor cursor(Task task) {
		return new DueWindow.Cursor(task.dueAt.toEpochMilli(), task.id);
	}

	/**
	 * Puts in-flight tasks whose visibility ran out back in line at their place, then takes up to
	 * {@code max} due tasks: each is in flight until {@code now + visibilityMillis}, its attempt
	 * counted and with a new delivery token.
	 */
	Claimed claim(int max, long visibilityMillis) {
		synchronized (this) {
			Instant now = now();
			for (Task task : this.tasks.values()) {
				if (task.visibleUntil != null && !task.visibleUntil.isAfter(now)) {
					// Back at its own place: its due time and place in line are kept.
					task.visibleUntil = null;
					this.waiting.add(task);
				}
			}
			List<Stored> claimed = new ArrayList<>();
			Iterator<Task> line = this.waiting.iterator();
			while (claimed.size() < max && line.hasNext()) {
				Task task = line.next();
				if (task.dueAt.isAfter(now)) {
					break;
				}
				line.remove();
				task.attempt++;
				task.token = ++this.sequence;
				task.visibleUntil = now.plusMillis(visibilityMillis);
				claimed.add(task.stored());
			}
			return new Claimed(claimed, nextDueIn(now), now);
		}
	}

	/**
	 * Milliseconds until the next waiting task falls due or the first in-flight delivery expires,
	 * whichever is first: 0 if a task is due now, -1 if nothing waits or is in flight.
	 */
	private long nextDueIn(Instant now) {
		long next = -1;
		if (!this.waiting.isEmpty()) {
			next = Math.max(0, this.waiting.first().dueAt.toEpochMilli() - now.toEpochMilli());
		}
		for (Task task : this.tasks.values()) {
			if (task.visibleUntil != null) {
				long expiresIn = Math.max(0, task.visibleUntil.toEpochMilli() - now.toEpochMilli());
				next = (next < 0) ? expiresIn : Math.min(next, expiresIn);
			}
		}
		return next;
	}

	/**
	 * Settles or extends deliveries; each counts only while its task is in flight with its token.
	 * @param argument the retry delay or visibility timeout in milliseconds, or the dead-letter reason
	 * @return per delivery, whether it was current
	 */
	List<Boolean> settle(Settlement settlement, String argument, List<Token> deliveries) {
		List<Boolean> results = new ArrayList<>(deliveries.size());
		boolean wake = false;
		synchronized (this) {
			Instant now = now();
			for (Token delivery : deliveries) {
				Task task = this.tasks.get(delivery.id());
				boolean current = task != null && task.visibleUntil != null && task.token == delivery.token();
				results.add(current);
				if (!current) {
					continue;
				}
				switch (settlement) {
					case EXTEND -> {
						Instant until = now.plusMillis(Long.parseLong(argument));
						if (until.isAfter(task.visibleUntil)) {
							task.visibleUntil = until;
						}
					}
					case ACK -> this.tasks.remove(task.id);
					case DEAD -> {
						this.tasks.remove(task.id);
						this.dead.remove(task.id);
						this.dead.put(task.id, new Dead(task.id, task.json, task.attempt, task.scheduledAt, argument, now));
					}
					case RETRY -> {
						task.dueAt = now.plusMillis(Long.parseLong(argument));
						wake = true;
						line(task);
					}
					case HAND_BACK -> {
						// Back at its own place in line, the attempt not counted.
						task.attempt--;
						task.visibleUntil = null;
						this.waiting.add(task);
						wake = true;
					}
				}
			}
		}
		wakeIf(wake);
		return results;
	}

	QueueStats stats() {
		synchronized (this) {
			Instant now = now();
			long due = countDue(now);
			long inFlight = this.tasks.size() - this.waiting.size();
			Instant oldest = (due > 0) ? this.waiting.first().dueAt : null;
			return new QueueStats(this.waiting.size() - due, due, inFlight, this.dead.size(), oldest);
		}
	}

	private long countDue(Instant now) {
		long due = 0;
		for (Task task : this.waiting) {
			if (task.dueAt.isAfter(now)) {
				break;
			}
			due++;
		}
		return due;
	}

	/** The most recent dead letters, most recent first. */
	List<Dead> deadLetters(int max) {
		synchronized (this) {
			// Most recent last in the map: reversed, then sorted stably by failure time (a clock may move back).
			List<Dead> recentFirst = new ArrayList<>(this.dead.values());
			Collections.reverse(recentFirst);
			recentFirst.sort(Comparator.comparing(Dead::failedAt).reversed());
			return List.copyOf(recentFirst.subList(0, Math.min(max, recentFirst.size())));
		}
	}

	/** Puts a dead letter back in line, due now, with its attempts reset; refused while its id is taken. */
	boolean redrive(String id) {
		synchronized (this) {
			Dead letter = this.dead.get(id);
			if (letter == null || this.tasks.containsKey(id)) {
				return false;
			}
			this.dead.remove(id);
			// A dead letter holds no lock: it runs again without one.
			Task task = new Task(id, letter.json(), letter.scheduledAt(), now(), null);
			this.tasks.put(id, task);
			line(task);
		}
		wakeIf(true);
		return true;
	}

	boolean purge(String id) {
		synchronized (this) {
			return this.dead.remove(id) != null;
		}
	}

	/** Calls the listener on every wake-up of this queue, from any instance; at once with {@link WakeSignal.Subscribed}. */
	AutoCloseable subscribe(Consumer<WakeSignal> listener) {
		this.listeners.add(listener);
		signal(listener, new WakeSignal.Subscribed());
		return () -> this.listeners.remove(listener);
	}

	/** Wakes every consumer of the queue, as a task due now does. */
	void wake() {
		WakeSignal due = new WakeSignal.Due(this.name, null);
		for (Consumer<WakeSignal> listener : this.listeners) {
			signal(listener, due);
		}
	}

	private void wakeIf(boolean wake) {
		if (wake) {
			wake();
		}
	}

	private void signal(Consumer<WakeSignal> listener, WakeSignal signal) {
		try {
			listener.accept(signal);
		}
		catch (RuntimeException ex) {
			// As a failed notification would be on Redis: the consumer polls instead.
			logger.warn("A wake-up listener of queue '" + this.name + "' failed", ex);
		}
	}

	/** What a claim settles with its token. */
	enum Settlement {

		ACK, RETRY, HAND_BACK, DEAD, EXTEND

	}

	/**
	 * A task to schedule.
	 * @param id its id
	 * @param json its payload
	 * @param delayMillis its delay from now, when {@code dueAt} is {@code null}
	 * @param dueAt its due time, or {@code null}
	 * @param lease the token of the lock it holds, or {@code null}
	 */
	record NewEntry(String id, String json, long delayMillis, @Nullable Instant dueAt, @Nullable LeaseToken lease) {

		NewEntry(String id, String json, long delayMillis, @Nullable Instant dueAt) {
			this(id, json, delayMillis, dueAt, null);
		}

	}

	/**
	 * A delivery to settle.
	 * @param id the task id
	 * @param token the token its claim gave it
	 */
	record Token(String id, long token) {

	}

	/**
	 * A task as it was when read.
	 * @param id the task id
	 * @param json its payload
	 * @param scheduledAt when it was scheduled
	 * @param dueAt when it falls due
	 * @param attempt its deliveries so far
	 * @param token the token of its last delivery
	 * @param inFlight whether a consumer holds it
	 * @param lease the token of the lock it holds, or {@code null}
	 */
	record Stored(String id, String json, Instant scheduledAt, Instant dueAt, int attempt, long token,
			boolean inFlight, @Nullable LeaseToken lease) {

	}

	/**
	 * What a claim took.
	 * @param tasks the tasks taken, in due order
	 * @param nextDueInMillis see {@link #nextDueIn}
	 * @param now the clock's time of the claim
	 */
	record Claimed(List<Stored> tasks, long nextDueInMillis, Instant now) {

	}

	/**
	 * A dead letter.
	 * @param id the task id
	 * @param json its payload
	 * @param attempts its deliveries
	 * @param scheduledAt when it was first scheduled
	 * @param reason why it failed
	 * @param failedAt when it was dead-lettered
	 */
	record Dead(String id, String json, int attempts, Instant scheduledAt, String reason, Instant failedAt) {

	}

	/** A waiting or in-flight task; changed under the monitor only. */
	private static final class Task {

		final String id;

		final String json;

		final Instant scheduledAt;

		/** The token of the lock it holds until it ends, or {@code null}. */
		final @Nullable LeaseToken lease;

		Instant dueAt;

		long sequence;

		int attempt;

		long token;

		/** The end of its visibility while in flight, {@code null} while it waits. */
		@Nullable Instant visibleUntil;

		Task(String id, String json, Instant scheduledAt, Instant dueAt, @Nullable LeaseToken lease) {
			this.id = id;
			this.json = json;
			this.scheduledAt = scheduledAt;
			this.dueAt = dueAt;
			this.lease = lease;
		}

		Stored stored() {
			return new Stored(this.id, this.json, this.scheduledAt, this.dueAt, this.attempt, this.token,
					this.visibleUntil != null, this.lease);
		}

	}

}
