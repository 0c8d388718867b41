package dev.baton.docs.gettingstarted;

import java.time.Duration;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockManager;
import org.springframework.stereotype.Service;

/** docs/getting-started.md, step 5, as the page shows it. */
@Service
public class Settlement {

	private final LockManager locks;

	public Settlement(LockManager locks) {
		this.locks = locks;
	}

	public void settle(String accountId) {
		try (LockLease lease = locks.tryAcquire("settlement:" + accountId, Duration.ofSeconds(1))
			.orElseThrow(() -> new IllegalStateException("settlement already running"))) {
			// pass lease.fencingToken() to the storage you write to, so a stale holder is refused
		}
	}
}
