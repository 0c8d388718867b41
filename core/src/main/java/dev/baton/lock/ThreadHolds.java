package dev.baton.lock;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * Which thread of this JVM holds which {@link RedisLock}, and how often: reentrancy is counted
 * here, without a round trip. Shared by every {@code RedisLock} object of one manager.
 */
final class ThreadHolds {

	private final Map<String, Hold> holds = new ConcurrentHashMap<>();

	/** The current thread's hold of the lock, or {@code null}. */
	@Nullable Hold ofCurrentThread(String name) {
		Hold hold = this.holds.get(name);
		return (hold != null && hold.thread == Thread.currentThread()) ? hold : null;
	}

	void add(String name, RedisLockLease lease) {
		this.holds.put(name, new Hold(Thread.currentThread(), lease));
	}

	/** Removes this hold only: another thread may hold the lock by now (this hold's lease was lost). */
	void remove(String name, Hold hold) {
		this.holds.remove(name, hold);
	}

	/** A thread's hold of one lock. Only that thread changes its count. */
	static final class Hold {

		private final Thread thread;

		private final RedisLockLease lease;

		private int count = 1;

		private Hold(Thread thread, RedisLockLease lease) {
			this.thread = thread;
			this.lease = lease;
		}

		RedisLockLease lease() {
			return this.lease;
		}

		int count() {
			return this.count;
		}

		void enter() {
			this.count++;
		}

		/** Returns {@code true} when this was the outermost hold. */
		boolean exit() {
			return --this.count == 0;
		}

	}

}
