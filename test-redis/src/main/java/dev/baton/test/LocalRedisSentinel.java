package dev.baton.test;

import java.util.List;

/**
 * A Redis Sentinel set of {@code redis-server} processes on loopback ports, started by
 * {@link RedisServers#startSentinel()}: a primary, a replica and three sentinels that monitor the
 * primary under {@link #masterName()} with a quorum of 2. Close it when done; it also stops when
 * the JVM exits.
 */
public interface LocalRedisSentinel extends AutoCloseable {

	/** The name the sentinels know the primary by, the form of {@code spring.data.redis.sentinel.master}. */
	String masterName();

	/** The data nodes, the first started as the primary and the second as its replica. */
	List<LocalRedisServer> dataNodes();

	/** The sentinels. */
	List<LocalRedisServer> sentinels();

	/**
	 * The sentinels as {@code host:port}, the form of {@code spring.data.redis.sentinel.nodes}.
	 * @return one entry per sentinel
	 */
	default List<String> sentinelNodes() {
		return sentinels().stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	/**
	 * The port of the data node the sentinels name as the primary now.
	 * @return the primary's port
	 */
	int primaryPort();

	/**
	 * Asks the sentinels for a failover ({@code SENTINEL FAILOVER}) and waits until they name
	 * the replica as the new primary.
	 */
	void failover();

	/** Stops every process. */
	@Override
	void close();

}
