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

}
