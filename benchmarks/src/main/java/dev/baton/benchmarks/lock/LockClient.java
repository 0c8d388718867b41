package dev.baton.benchmarks.lock;

import java.util.concurrent.locks.Lock;

/**
 * One lock implementation under test, connected to the Redis server. Adapters are small: every
 * library under test hands out a {@link Lock} per name.
 */
public interface LockClient extends AutoCloseable {

	/**
	 * Returns the lock for a name. Called before every acquisition, as application code calls
	 * its library, so that any per-name lookup cost is part of the figure.
	 * @param name the lock name, unique to the benchmark run
	 * @return a thread-owned lock
	 */
	Lock lockFor(String name);

	/** Disconnects and stops every thread the library started. */
	@Override
	void close();

}
