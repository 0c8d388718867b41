package dev.baton.lock.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;

/** Waits until a thread waits in a lock's line of its JVM, ready to be handed the lock. */
final class InLine {

	private InLine() {
	}

	/**
	 * A waiter that Redis already refused may still be on its way into the line (its reply, its
	 * room's subscription): a release then is no hand-off.
	 * @param waiter the waiting thread, once it has started
	 */
	static void awaitInLine(AtomicReference<Thread> waiter) {
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			Thread thread = waiter.get();
			return thread != null && thread.getState() == Thread.State.TIMED_WAITING
					&& Arrays.stream(thread.getStackTrace()).anyMatch((frame) -> frame.getMethodName().equals("takeTurns"));
		});
	}

}
