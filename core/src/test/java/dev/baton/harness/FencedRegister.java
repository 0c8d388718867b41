package dev.baton.harness;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The resource a lock guards, kept by the harness: per lock name, it accepts a write only with a
 * fencing token at least as large as the last it accepted, as a conditional
 * {@code UPDATE ... WHERE fence <= ?} would. Every write is recorded, and a refused one is kept
 * for the checker: a holder that the lock did not tell of a loss must never be refused.
 */
final class FencedRegister {

	private final Map<String, Hold> lastAccepted = new HashMap<>();

	private final List<Refusal> refusals = new ArrayList<>();

	private final Timeline timeline;

	private long accepted;

	FencedRegister(Timeline timeline) {
		this.timeline = timeline;
	}

	/**
	 * Writes under a token.
	 * @return whether the write was accepted
	 */
	synchronized boolean write(Hold hold) {
		Hold last = this.lastAccepted.get(hold.name);
		if (last != null && hold.token < last.token) {
			this.refusals.add(new Refusal(this.timeline.now(), hold, last));
			this.timeline.record(hold.name, "register REFUSED write of " + hold.holder + " with token " + hold.token
					+ " (last accepted " + last + ")");
			return false;
		}
		this.lastAccepted.put(hold.name, hold);
		this.accepted++;
		this.timeline.record(hold.name, "register accepted token " + hold.token + " from " + hold.holder);
		return true;
	}

	synchronized long accepted() {
		return this.accepted;
	}

	synchronized List<Refusal> refusals() {
		return List.copyOf(this.refusals);
	}

	/**
	 * A write refused for its stale token.
	 * @param atMillis when
	 * @param hold the writer
	 * @param last the holder whose larger token the register had accepted
	 */
	record Refusal(long atMillis, Hold hold, Hold last) {

	}

}
