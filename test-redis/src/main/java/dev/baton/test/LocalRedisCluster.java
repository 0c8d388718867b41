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
	 * The replicas, those of the first primary first: with {@code r} replicas per primary, replica
	 * {@code i} follows primary {@code i / r}. Empty for a cluster started without replicas.
	 */
	List<LocalRedisServer> replicas();

	/**
	 * The primaries as {@code host:port}, the form of {@code spring.data.redis.cluster.nodes}; a
	 * client learns the replicas from them.
	 * @return one entry per primary
	 */
	default List<String> nodes() {
		return primaries().stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	/** Stops every node. */
	@Override
	void close();

}
