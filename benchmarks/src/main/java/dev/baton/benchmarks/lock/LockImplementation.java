package dev.baton.benchmarks.lock;

import java.util.function.Function;

/**
 * A named lock implementation the harness can run.
 * @param name the name used on the command line and in result tables
 * @param waits whether {@link java.util.concurrent.locks.Lock#lock()} waits efficiently, so that
 * the contended scenarios make sense (the raw floor only spins)
 * @param factory connects a client to the Redis server with the given URL
 */
public record LockImplementation(String name, boolean waits, Function<String, LockClient> factory) {

	public LockClient connect(String redisUrl) {
		return this.factory.apply(redisUrl);
	}

}
