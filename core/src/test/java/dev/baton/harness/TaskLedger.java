package dev.baton.harness;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** What happened to each task: when it was accepted, and how often its handler ran and succeeded. */
final class TaskLedger {

	/** Task id to when the call that stored it started, in ms from the run's start. */
	final Map<String, Long> accepted = new ConcurrentHashMap<>();

	/** Task ids whose scheduling never returned: their outcome is unknown. */
	final Map<String, Long> unknown = new ConcurrentHashMap<>();

	final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	final Map<String, AtomicInteger> successes = new ConcurrentHashMap<>();

	void ran(String id, boolean succeeded) {
		this.runs.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
		if (succeeded) {
			this.successes.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
		}
	}

	boolean handled(String id) {
		return this.successes.containsKey(id);
	}

}
