package dev.baton.lock;

/**
 * The Redis keys of one lock. All share the hash tag {@code {name}}, so every script touches one
 * cluster slot; the lock key doubles as the channel that waiters listen on.
 *
 * @param lock the key holding the owner id
 * @param fence the key holding the last fencing token issued
 * @param waiting the key that exists while someone waits, so that release publishes only then
 */
record LockKeys(String lock, String fence, String waiting) {

	static LockKeys of(String prefix, String name) {
		String lock = prefix + "{" + name + "}";
		return new LockKeys(lock, lock + ":fence", lock + ":waiting");
	}

	String channel() {
		return this.lock;
	}

}
