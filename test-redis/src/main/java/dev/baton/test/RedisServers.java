package dev.baton.test;

import dev.baton.test.internal.ClusterProcesses;
import dev.baton.test.internal.ContainerRedis;
import dev.baton.test.internal.ExternalRedis;
import dev.baton.test.internal.RedisProcess;
import dev.baton.test.internal.SentinelProcesses;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Provides Redis servers for tests.
 *
 * <p>The {@linkplain #shared() shared server} is resolved once per JVM, in this order:
 * <ol>
 * <li>the URL in the environment variable {@value #URL_VARIABLE} (or the system property
 * {@value #URL_PROPERTY}), used as is;</li>
 * <li>a {@code redis:7-alpine} container, when Testcontainers is on the class path and a Docker
 * engine answers;</li>
 * <li>a {@code redis-server} process on a free loopback port: the one on the {@code PATH}, else
 * the binary shipped in {@code com.github.codemonstur:embedded-redis}.</li>
 * </ol>
 * Servers this JVM starts are stopped when it exits, also when it is killed: a local process
 * watches the pipe to this JVM and ends with it.
 */
public final class RedisServers {

	/** Environment variable naming an existing Redis server, e.g. {@code redis://127.0.0.1:6379}. */
	public static final String URL_VARIABLE = "BATON_TEST_REDIS_URL";

	/** System property alternative to {@value #URL_VARIABLE}. */
	public static final String URL_PROPERTY = "baton.test.redis.url";

	private static final Logger logger = LoggerFactory.getLogger(RedisServers.class);

	private static @Nullable RedisServer shared;

	private RedisServers() {
	}

	/**
	 * Returns the server shared by every test of this JVM, starting it on first use.
	 * @return the shared server
	 */
	public static synchronized RedisServer shared() {
		if (shared == null) {
			shared = provision();
			logger.info("Redis for tests: {} {} at {}", shared.origin(), shared.version(), shared.url());
		}
		return shared;
	}

	/**
	 * Starts a new {@code redis-server} process on a free loopback port, for tests that need more
	 * than one server (replication, cluster, failover). The caller stops it with
	 * {@link RedisServer#close()}; it also stops when this JVM exits.
	 * @param arguments extra {@code redis-server} arguments, e.g. {@code "--appendonly", "yes"}
	 * @return the running server, which the test may also kill and restart
	 */
	public static LocalRedisServer startLocal(String... arguments) {
		return RedisProcess.start(arguments);
	}

	/**
	 * Starts a new {@code redis-server} process on the given loopback port, for example the
	 * default port 6379 so that other local processes find it without configuration. The caller
	 * stops it with {@link RedisServer#close()}; it also stops when this JVM exits.
	 * @param port the port to listen on
	 * @param arguments extra {@code redis-server} arguments
	 * @return the running server
	 * @throws IllegalStateException if the server cannot start on that port
	 */
	public static LocalRedisServer startLocal(int port, String... arguments) {
		return RedisProcess.startOn(port, arguments);
	}

	/**
	 * Starts a Redis Cluster of {@code redis-server} processes on loopback ports, every primary
	 * with an equal share of the slots and no replicas. The caller stops it with
	 * {@link LocalRedisCluster#close()}; it also stops when this JVM exits.
	 * @param primaries how many primaries, for example 3
	 * @return the formed cluster, every slot served
	 */
	public static LocalRedisCluster startCluster(int primaries) {
		return ClusterProcesses.start(primaries, 0);
	}

	/**
	 * Starts a Redis Cluster as processes, like {@link #startCluster(int)}, with replicas: when a
	 * primary fails (for example {@link LocalRedisServer#kill()}), one of its replicas takes over
	 * after the nodes' timeout of 2 s.
	 * @param primaries how many primaries, for example 3
	 * @param replicasPerPrimary how many replicas follow each primary, for example 1
	 * @return the formed cluster, every slot served and every replica in sync
	 */
	public static LocalRedisCluster startCluster(int primaries, int replicasPerPrimary) {
		return ClusterProcesses.start(primaries, replicasPerPrimary);
	}

	/**
	 * Starts a Redis Cluster as processes, like {@link #startCluster(int, int)}, every node with
	 * extra {@code redis-server} arguments: with {@code "--appendonly", "yes"} a primary killed and
	 * {@linkplain LocalRedisServer#restart() restarted} comes back with its data and its place in
	 * the cluster (its {@code nodes.conf} stays in its directory).
	 * @param primaries how many primaries, for example 3
	 * @param replicasPerPrimary how many replicas follow each primary, for example 0
	 * @param arguments extra {@code redis-server} arguments of every node
	 * @return the formed cluster, every slot served and every replica in sync
	 */
	public static LocalRedisCluster startCluster(int primaries, int replicasPerPrimary, String... arguments) {
		return ClusterProcesses.start(primaries, replicasPerPrimary, arguments);
	}

	/**
	 * Starts a Redis Sentinel set as processes: a primary, its replica and three sentinels with a
	 * quorum of 2 and {@code down-after-milliseconds} of 1 s. The caller stops it with
	 * {@link LocalRedisSentinel#close()}; it also stops when this JVM exits.
	 * @return the set, every sentinel aware of the replica and of each other
	 */
	public static LocalRedisSentinel startSentinel() {
		return SentinelProcesses.start();
	}

	private static RedisServer provision() {
		String url = configuredUrl();
		if (url != null) {
			return ExternalRedis.connect(url);
		}
		if (ContainerRedis.isDockerAvailable()) {
			return ContainerRedis.start();
		}
		return RedisProcess.start();
	}

	private static @Nullable String configuredUrl() {
		String url = System.getProperty(URL_PROPERTY, System.getenv(URL_VARIABLE));
		return (url == null || url.isBlank()) ? null : url.trim();
	}

}
