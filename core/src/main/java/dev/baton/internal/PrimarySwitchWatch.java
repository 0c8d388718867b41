package dev.baton.internal;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

/**
 * Follows the Redis Sentinel's switches of the primary at once. After a failover the old
 * primary accepts writes until the sentinels demote it (about 10 s after a {@code SENTINEL
 * FAILOVER}), and Lettuce reconnects only when the old primary drops the connection: writes in
 * that window are lost. This watch subscribes to {@code +switch-master} on every sentinel and, on
 * a switch of the application's primary, resets the connection factory's shared connection (the
 * next command asks the sentinels for the new primary) and tells its listeners, so that they can
 * repeat what the old primary may have taken and lost.
 *
 * <p>Sentinel publishes the switch when the failover is done, about a second after it promoted
 * the replica. Meanwhile the old primary would still take writes and lose them, so the watch also
 * follows the failover's start ({@code +failover-state-send-slaveof-noone}, published by the
 * sentinel that leads it just before it promotes the replica) and holds Baton's writes back until
 * the switch ({@link #hold()}). An application that was frozen meanwhile reads the messages it missed
 * before it writes again ({@link FailoverHold}).
 */
public final class PrimarySwitchWatch implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(PrimarySwitchWatch.class);

	/** How long writes wait for a failover's switch at most, unless told otherwise. */
	public static final Duration DEFAULT_HOLD_LIMIT = Duration.ofSeconds(5);

	private static final String SWITCH_CHANNEL = "+switch-master";

	/** How long asking a sentinel for the primary may take. */
	private static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(1);

	/** The leading sentinel is about to send the chosen replica {@code REPLICAOF NO ONE}. */
	private static final String PROMOTING_CHANNEL = "+failover-state-send-slaveof-noone";

	/** The promotion did not happen in time: the failover was given up, the old primary stays. */
	private static final String ABORTED_CHANNEL = "-failover-abort-slave-timeout";

	private final LettuceConnectionFactory connectionFactory;

	private final String master;

	private final RedisSentinelConfiguration sentinels;

	private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

	private final List<StatefulRedisPubSubConnection<String, String>> subscriptions = new CopyOnWriteArrayList<>();

	/** Acts on switches off Lettuce's event loop, one at a time. */
	private final ExecutorService switches = BatonThreads.PLATFORM.singleThread("baton-primary-switch");

	private final RedisClient client;

	private final FailoverHold hold;

	private final FreezeDetector freezes = new FreezeDetector();

	/** The primary last switched to, so that the same switch from several sentinels counts once. */
	private volatile @Nullable String primary;

	private PrimarySwitchWatch(LettuceConnectionFactory connectionFactory, RedisSentinelConfiguration sentinels,
			Duration holdLimit) {
		this.connectionFactory = connectionFactory;
		this.hold = new FailoverHold(holdLimit, this.freezes, this::catchUp);
		this.master = sentinels.getRequiredMaster().getName();
		this.sentinels = sentinels;
		// Resources of its own: a restart of a pooling factory may shut down the factory's.
		this.client = RedisClient.create();
	}

	/**
	 * A watch for a connection factory that finds its primary through Redis Sentinel; not started.
	 * @param connectionFactory the application's connection factory
	 * @return the watch, or empty when the factory is not a Lettuce one that uses Sentinel
	 */
	public static Optional<PrimarySwitchWatch> of(RedisConnectionFactory connectionFactory) {
		return of(connectionFactory, DEFAULT_HOLD_LIMIT);
	}

	/**
	 * A watch for a connection factory that finds its primary through Redis Sentinel; not started.
	 * @param connectionFactory the application's connection factory
	 * @param holdLimit how long writes wait for a failover's switch at most; zero for not holding
	 * them back at all
	 * @return the watch, or empty when the factory is not a Lettuce one that uses Sentinel
	 */
	public static Optional<PrimarySwitchWatch> of(RedisConnectionFactory connectionFactory, Duration holdLimit) {
		if (holdLimit.isNegative()) {
			throw new IllegalArgumentException("Failover hold limit must not be negative, but was " + holdLimit);
		}
		if (connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.getSentinelConfiguration() != null) {
			return Optional.of(new PrimarySwitchWatch(lettuce, lettuce.getSentinelConfiguration(), holdLimit));
		}
		return Optional.empty();
	}

	/**
	 * What holds writes back while the sentinels promote a replica, until the connection follows
	 * the new primary.
	 * @return the hold, for {@link TimedScripts#followPrimary(FailoverHold)}
	 */
	public FailoverHold hold() {
		return this.hold;
	}

	/**
	 * Adds what to do once the connection follows a new primary.
	 * @param listener runs on the watch's own thread, after the shared connection was reset
	 */
	public void onSwitch(Runnable listener) {
		this.listeners.add(listener);
	}

	/**
	 * Subscribes to every sentinel. A sentinel that does not answer now is left out; Lettuce
	 * subscribes again to those it reaches after a reconnect.
	 */
	public void start() {
		this.freezes.start();
		for (RedisNode node : this.sentinels.getSentinels()) {
			try {
				StatefulRedisPubSubConnection<String, String> connection = this.client.connectPubSub(uri(node));
				connection.addListener(new RedisPubSubAdapter<>() {

					@Override
					public void message(String channel, String message) {
						switch (channel) {
							case SWITCH_CHANNEL -> switched(message);
							case PROMOTING_CHANNEL -> promoting(message);
							default -> aborted(message);
						}
					}

				});
				connection.async().subscribe(SWITCH_CHANNEL, PROMOTING_CHANNEL, ABORTED_CHANNEL);
				this.subscriptions.add(connection);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not subscribe to the primary switches of sentinel " + node + ": " + ex.getMessage());
			}
		}
	}

	private RedisURI uri(RedisNode node) {
		RedisSentinelConfiguration sentinels = this.sentinels;
		RedisURI.Builder uri = RedisURI.builder()
			.withHost(node.getRequiredHost())
			.withPort(node.getRequiredPort())
			.withSsl(this.connectionFactory.isUseSsl())
			.withTimeout(this.connectionFactory.getClientConfiguration().getCommandTimeout());
		sentinels.getSentinelPassword().toOptional().ifPresent((password) -> {
			if (sentinels.getSentinelUsername() != null) {
				uri.withAuthentication(sentinels.getSentinelUsername(), password);
			}
			else {
				uri.withPassword(password);
			}
		});
		return uri.build();
	}

	/**
	 * A message of {@code +failover-state-send-slaveof-noone}: "slave host:port host port @ name
	 * primary-host primary-port".
	 */
	private void promoting(String message) {
		String[] parts = message.split(" ");
		if (parts.length != 8 || !parts[5].equals(this.master)) {
			return;
		}
		this.hold.failoverSeen();
		if (this.hold.begin()) {
			logger.info("Redis Sentinel is promoting " + parts[1] + " to primary '" + this.master
					+ "'; Baton's calls wait for the switch (at most " + this.hold.limit().toMillis()
					+ " ms), as the old primary would lose what they write");
		}
	}

	/** A message of {@code -failover-abort-slave-timeout}: "master name host port". */
	private void aborted(String message) {
		String[] parts = message.split(" ");
		if (parts.length == 4 && parts[1].equals(this.master)) {
			this.hold.end();
		}
	}

	/** A message of {@code +switch-master}: "name old-host old-port new-host new-port". */
	private void switched(String message) {
		String[] parts = message.split(" ");
		if (parts.length != 5 || !parts[0].equals(this.master)) {
			return;
		}
		String newPrimary = parts[3] + ":" + parts[4];
		if (newPrimary.equals(this.primary)) {
			return;
		}
		this.primary = newPrimary;
		this.hold.failoverSeen();
		// Unless the failover's start was heard of (not when the application was frozen through it).
		this.hold.begin();
		this.switches.execute(() -> follow(newPrimary));
	}

	private void follow(String newPrimary) {
		logger.info("Redis Sentinel switched primary '" + this.master + "' to " + newPrimary
				+ "; reconnecting to it now instead of writing to the old primary until it is demoted");
		awaitSentinelsNaming(newPrimary);
		try {
			reconnect();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not reset the Redis connection after a primary switch: " + ex.getMessage());
		}
		// Before the listeners, whose calls would wait for it.
		this.hold.end();
		for (Runnable listener : this.listeners) {
			try {
				listener.run();
			}
			catch (RuntimeException ex) {
				logger.warn("A primary switch listener failed: " + ex.getMessage(), ex);
			}
		}
	}

	/**
	 * Makes the factory's next connections go to the new primary. Resetting the shared connection
	 * is enough for a factory without a pool; a pooling factory takes its shared connection from
	 * the pool and gives it back there on a reset, still open to the old primary, where the next
	 * borrower (Baton's calls among them) would keep writing. So a pooling factory is restarted,
	 * which closes every pooled connection; calls made in the meantime fail as on a stopped factory.
	 */
	private void reconnect() {
		if (this.connectionFactory.getClientConfiguration() instanceof LettucePoolingClientConfiguration) {
			this.connectionFactory.stop();
			this.connectionFactory.start();
		}
		else {
			this.connectionFactory.resetConnection();
		}
	}

	/**
	 * Waits, within the hold's limit, until every sentinel that answers names the new primary: the
	 * one that led the failover announces the switch first, and a reconnect that asked another
	 * sentinel before it heard of the switch would go back to the old primary, which takes writes
	 * until it is demoted.
	 */
	private void awaitSentinelsNaming(String newPrimary) {
		long deadline = System.nanoTime() + Math.max(this.hold.limit().toNanos(), LOOKUP_TIMEOUT.toNanos());
		while (!everySentinelNames(newPrimary)) {
			if (System.nanoTime() - deadline > 0) {
				logger.warn("Not every sentinel names " + newPrimary + " as primary '" + this.master
						+ "' yet; reconnecting anyway");
				return;
			}
			try {
				TimeUnit.MILLISECONDS.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private boolean everySentinelNames(String newPrimary) {
		for (RedisNode node : this.sentinels.getSentinels()) {
			RedisURI uri = uri(node);
			uri.setTimeout(LOOKUP_TIMEOUT);
			try (StatefulRedisSentinelConnection<String, String> sentinel = this.client.connectSentinel(uri)) {
				if (sentinel.sync().getMasterAddrByName(this.master) instanceof InetSocketAddress primary
						&& !newPrimary.equals(primary.getHostString() + ":" + primary.getPort())) {
					return false;
				}
			}
			catch (RuntimeException ex) {
				// A sentinel that does not answer is passed over by the connection's lookup as well.
			}
		}
		return true;
	}

	/**
	 * Reads every message the sentinels sent before the call: a {@code PING}'s reply comes after
	 * them on each subscription.
	 */
	private CompletableFuture<Void> catchUp() {
		return CompletableFuture.allOf(this.subscriptions.stream()
			.filter(StatefulRedisPubSubConnection::isOpen)
			.map((connection) -> connection.async().ping().toCompletableFuture())
			.toArray(CompletableFuture[]::new));
	}

	@Override
	public void close() {
		this.freezes.close();
		this.hold.end();
		this.subscriptions.forEach(StatefulRedisPubSubConnection::closeAsync);
		this.switches.shutdown();
		try {
			this.switches.awaitTermination(1, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.client.shutdownAsync(0, 1, TimeUnit.SECONDS);
	}

}
