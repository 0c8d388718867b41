package dev.baton.lock.redis;

/**
 * The Redis keys of one lock. All share the hash tag {@code {name}}, so every script touches one
 * cluster slot; the lock key doubles as the channel that waiters listen on.
 *
 * <p>A name with braces would end the hash tag early, putting unrelated names in one slot, so
 * such a name is escaped ({@code %}, <code>{</code> and <code>}</code> as {@code %25},
 * {@code %7B}, {@code %7D}) and its keys carry a {@code ~} after the tag. Names without braces
 * keep their keys as they are; the {@code ~} keeps escaped and plain keys apart.
 *
 * @param name the lock name
 * @param lock the key holding the owner id
 * @param fence the key holding the last fencing token issued
 * @param waiting the key that exists while someone waits, so that release publishes only then
 */
record LockKeys(String name, String lock, String fence, String waiting) {

	static LockKeys of(String prefix, String name) {
		String lock = prefix + "{" + tag(name) + "}" + (hasBraces(name) ? "~" : "");
		return new LockKeys(name, lock, lock + ":fence", lock + ":waiting");
	}

	private static String tag(String name) {
		return hasBraces(name) ? name.replace("%", "%25").replace("{", "%7B").replace("}", "%7D") : name;
	}

	private static boolean hasBraces(String name) {
		return name.indexOf('{') >= 0 || name.indexOf('}') >= 0;
	}

	String channel() {
		return this.lock;
	}

}
