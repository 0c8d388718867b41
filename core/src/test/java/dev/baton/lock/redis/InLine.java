package dev.baton.lock.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import static org.awaitility.Awaitility.await;

/** Waits until a thread waits in a lock's line of its JVM, ready to be handed the lock. */
final class InLine {

	private InLine() {
	}

	/**
	 * A waiter parked in line, not asking Redis: a waiter that Redis refused may still wait for
	 * that reply, and a release meanwhile is no hand-off.
	 * @param waiter the waiting thread, once it has started
	 */
	static void awaitInLine(AtomicReference<Thread> waiter) {
		await().atMost(Duration.ofSeconds(10)).until(() -> isInLine(waiter.get()));
	}

	/** Whether a thread is parked in line, not asking Redis ({@link #awaitInLine}). */
	static boolean isInLine(@Nullable Thread thread) {
		if (thread == null || thread.getState() != Thread.State.TIMED_WAITING) {
			return false;
		}
		List<String> methods = Arrays.stream(thread.getStackTrace()).map(StackTraceElement::getMethodName).toList();
		// Waiting for a Redis reply within takeTurns (ask) is not being ready for a hand-off.
		return methods.contains("takeTurns") && !methods.contains("ask");
	}

}
