package dev.baton.harness;

import java.time.Duration;
import java.util.List;

import dev.baton.test.LocalRedisServer;
import dev.baton.test.RedisProxy;
import dev.baton.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A fresh standalone Redis with an append-only file, every instance behind a proxy of its own: proxy
 * faults on each instance's link, client kills and pauses and {@code kill -9} of Redis, which
 * excuses what Redis forgot; and a lock instance in a child JVM, connected straight to it, which
 * the schedule pauses.
 */
final class StandaloneTopology implements HarnessTopology {

	private final Timeline timeline;

	/** Writes its append-only file before it answers (fsync left to the system: a kill -9 loses nothing). */
	private final LocalRedisServer server = RedisServers.startLocal("--appendonly", "yes", "--appendfsync", "no");

	private final LettuceConnectionFactory checker;

	private final RedisClient adminClient;

	private final StatefulRedisConnection<String, String> admin;

	StandaloneTopology(Timeline timeline) {
		this.timeline = timeline;
		this.checker = HarnessInstance.connectionFactory(standalone(this.server.port()), null);
		this.adminClient = RedisClient.create(RedisURI.create(this.server.host(), this.server.port()));
		this.admin = this.adminClient.connect();
		this.admin.setTimeout(Duration.ofSeconds(2));
	}

	private static RedisStandaloneConfiguration standalone(int port) {
		return new RedisStandaloneConfiguration("127.0.0.1", port);
	}

	@Override
	public FaultSchedule schedule(long seed, int instances, long lengthMillis) {
		return FaultSchedule.generate(seed, instances, lengthMillis);
	}

	@Override
	public Link connect(int instance) {
		RedisProxy proxy = RedisProxy.to(this.server);
		return new Link(standalone(proxy.port()), InstanceProxies.single(proxy));
	}

	@Override
	public List<String> childRedis() {
		return List.of("standalone", Integer.toString(this.server.port()));
	}

	@Override
	public LettuceConnectionFactory checker() {
		return this.checker;
	}

	@Override
	public ServerFaults serverFaults() {
		return new StandaloneServerFaults(this.server, this.admin.sync(), this.timeline);
	}

	@Override
	public List<long[]> dataLoss(FaultInjector faults) {
		return faults.kills();
	}

	@Override
	public List<String> totals(TaskLedger ledger) {
		return List.of();
	}

	@Override
	public void close() {
		this.admin.close();
		this.adminClient.shutdown();
		this.checker.destroy();
		this.server.close();
	}

}
