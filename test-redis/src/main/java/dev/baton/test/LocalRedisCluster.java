package dev.baton.test;

import java.util.List;

/**
 * A Redis Cluster of {@code redis-server} processes on loopback ports, started by
 * {@link RedisServers#startCluster(int)}: every primary owns an equal share of the 16,384 slots.
 * Close it when done; it also stops when the JVM exits.
 */
public interface LocalRedisCluster extends AutoCloseable {

	/** The primaries, in slot order: the first owns slot 0. */
	List<LocalRedisServer> primaries();

	/**
	 * The nodes as {@code host:port}, the form of {@code spring.data.redis.cluster.nodes}.
	 * @return one entry per primary
	 */
	default List<String> nodes() {
		return primaries().stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	/** Stops every node. */
	@Override
	void close();

}
