package dev.baton.test;

/**
 * A {@code redis-server} process that this JVM started, which a test can kill and restart to see
 * what its code does when Redis goes away and comes back.
 *
 * <p>Obtain one with {@link RedisServers#startLocal(String...)}. Pass
 * {@code "--appendonly", "yes"} to keep the data across a restart; without it the server comes
 * back empty, as after a crash of a server without persistence.
 */
public interface LocalRedisServer extends RedisServer {

	/**
	 * Kills the server with {@code SIGKILL} (nothing is saved) and waits until its port is free.
	 */
	void kill();

	/**
	 * Starts the server again on the same port, with the same arguments and data directory.
	 * @throws IllegalStateException if it does not start
	 */
	void restart();

	/**
	 * Starts the server again on the same port and with the same arguments, without the data it
	 * persisted (its RDB and append-only files are deleted first): a server started with
	 * {@code "--appendonly", "yes"} comes back empty, as one without persistence, or one that
	 * lost its disk, does after a crash.
	 * @throws IllegalStateException if it does not start
	 */
	void restartWithoutData();

}
