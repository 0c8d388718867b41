package dev.baton.lock.spi;

import java.time.Duration;

import dev.baton.lock.LockLease;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The record of which thread holds which lock: removing one thread's stale hold leaves the hold
 * another thread took of the same name since.
 */
class ThreadOwnedLockHoldsTests {

	@Test
	void removingAHoldLeavesAnotherThreadsHoldOfTheSameName() throws Exception {
		ThreadOwnedLock.Holds<LockLease> holds = new ThreadOwnedLock.Holds<>();
		LockLease lease = new NamedLease("shared");
		holds.add("shared", lease);
		var stale = holds.ofCurrentThread("shared");
		Thread other = new Thread(() -> holds.add("shared", lease));
		other.start();
		other.join();

		holds.remove("shared", stale);

		assertThat(holds.ofCurrentThread("shared")).isNull();
		Thread check = new Thread(() -> assertThat(holds.ofCurrentThread("shared")).isNotNull());
		check.start();
		check.join();
	}

	/** Only a name: the record never asks a lease anything else. */
	private record NamedLease(String name) implements LockLease {

		@Override
		public long fencingToken() {
			throw new UnsupportedOperationException();
		}

		@Override
		public boolean isValid() {
			return true;
		}

		@Override
		public void release() {
		}

		@Override
		public void release(Duration lockAtLeastFor) {
		}

	}

}
