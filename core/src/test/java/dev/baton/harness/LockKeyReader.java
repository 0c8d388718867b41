package dev.baton.harness;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.baton.lock.redis.RedisLockManager;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Reads lock keys through the checker's connection (no proxy, so no link fault in the way) and
 * learns the owner prefix of each lock manager: the part of an owner id before its last
 * {@code ':'}, unique to one manager. With it, {@link LockChecks} tells a refused acquisition that
 * found the key held by an owner of the caller's own manager.
 */
final class LockKeyReader {

	/**
	 * How long a worker waits for a read. The checker has Lettuce's 60 s timeout, and Redis may
	 * be killed or paused: a worker must not stand still for it (its calls are timed).
	 */
	private static final long READ_TIMEOUT_MILLIS = 500;

	private final @Nullable StringRedisTemplate redis;

	/** Reads run here, so that a read Redis does not answer holds up no worker; idle threads end by themselves. */
	private final ExecutorService reads = Executors.newCachedThreadPool((runnable) -> {
		Thread thread = new Thread(runnable, "harness-key-reads");
		thread.setDaemon(true);
		return thread;
	});

	/** By manager identity: a restarted instance has a new manager with a new prefix. */
	private final Map<Object, String> prefixes = Collections.synchronizedMap(new IdentityHashMap<>());

	/**
	 * @param redis the checker's template, or {@code null} where nothing is read (unit tests of
	 * the checks, which record what a read found themselves)
	 */
	LockKeyReader(@Nullable StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * The key holding a lock's owner id, as Baton names it with its default prefix: the name is
	 * the hash tag. The workloads' names have no braces, which Baton would escape.
	 */
	static String key(String name) {
		if (name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
			throw new IllegalArgumentException("Lock name with braces: " + name);
		}
		return RedisLockManager.Builder.DEFAULT_KEY_PREFIX + "{" + name + "}";
	}

	/** The manager-unique part of an owner id, or {@code null} for no owner id. */
	static @Nullable String prefix(@Nullable String owner) {
		int end = (owner != null) ? owner.lastIndexOf(':') : -1;
		return (end > 0) ? owner.substring(0, end) : null;
	}

	/**
	 * Reads a lock's key now.
	 * @return what it held ({@code null} value: no key), or {@code null} if Redis did not answer in time
	 */
	@Nullable Read read(String name) {
		if (this.redis == null) {
			return null;
		}
		StringRedisTemplate redis = this.redis;
		Future<@Nullable String> value = this.reads.submit(() -> redis.opsForValue().get(key(name)));
		try {
			return new Read(value.get(READ_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (Exception ex) {
			// Redis killed, paused or frozen: nothing to judge by.
			value.cancel(true);
			return null;
		}
	}

	/**
	 * Learns the prefix of the manager that granted a holder now in its critical section, the
	 * first time one of its holders gets here: the key holds that holder's owner id. Only if the
	 * holder still held its lease after the read, so that the key was not already another's.
	 */
	void learn(Object manager, String name, BooleanSupplier stillHeld) {
		if (this.prefixes.containsKey(manager)) {
			return;
		}
		Read read = read(name);
		String prefix = (read != null) ? prefix(read.value()) : null;
		if (prefix != null && stillHeld.getAsBoolean()) {
			this.prefixes.putIfAbsent(manager, prefix);
		}
	}

	/** For tests of the checks: the prefix a manager's owner ids have. */
	void remember(Object manager, String prefix) {
		this.prefixes.put(manager, prefix);
	}

	/** The owner prefix learned for a manager, or {@code null} if none of its holders was seen. */
	@Nullable String prefixOf(Object manager) {
		return this.prefixes.get(manager);
	}

	/** Whether an owner id read from a key is one of the manager's, as far as its prefix was learned. */
	boolean isOwnerOf(Object manager, @Nullable String owner) {
		String own = prefixOf(manager);
		return own != null && own.equals(prefix(owner));
	}

	/** What a read found: the owner id in the key, or {@code null} if there was no key. */
	record Read(@Nullable String value) {

	}

}
