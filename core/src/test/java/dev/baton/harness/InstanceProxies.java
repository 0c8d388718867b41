package dev.baton.harness;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.baton.test.RedisProxy;
import dev.baton.test.RedisServer;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.MappingSocketAddressResolver;

/**
 * The proxies between one instance and Redis, which its link faults act on: one in front of a
 * standalone server, or one per node of a Redis Cluster. A cluster client learns the nodes' real
 * addresses from {@code CLUSTER SLOTS} and {@code MOVED} replies, so the instance's client
 * resources rewrite every node's address to the instance's proxy of that node. The resources
 * also cap Lettuce's wait between reconnect attempts as Baton's starter does
 * ({@code baton.redis.max-reconnect-delay}), which {@link Outages} counts on.
 */
final class InstanceProxies implements AutoCloseable {

	/** Lettuce's longest wait between reconnect attempts, the starter's default. */
	static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);

	private final List<RedisProxy> proxies;

	private final ClientResources resources;

	private InstanceProxies(List<RedisProxy> proxies, ClientResources resources) {
		this.proxies = proxies;
		this.resources = resources;
	}

	/** No proxy: the instance connects to the servers' own addresses (Sentinel's). */
	static InstanceProxies none() {
		return new InstanceProxies(List.of(), clientResources().build());
	}

	/** A proxy in front of one server, which the instance connects to. */
	static InstanceProxies single(RedisProxy proxy) {
		return new InstanceProxies(List.of(proxy), clientResources().build());
	}

	/** A proxy per node, and client resources that connect to a node through its proxy. */
	static InstanceProxies perNode(List<? extends RedisServer> nodes) {
		List<RedisProxy> proxies = nodes.stream().map(RedisProxy::to).toList();
		Map<Integer, Integer> proxyPorts = new HashMap<>();
		for (int i = 0; i < nodes.size(); i++) {
			proxyPorts.put(nodes.get(i).port(), proxies.get(i).port());
		}
		ClientResources resources = clientResources().socketAddressResolver(MappingSocketAddressResolver.create((HostAndPort node) -> {
				Integer proxyPort = proxyPorts.get(node.getPort());
				return (proxyPort != null) ? HostAndPort.of(node.getHostText(), proxyPort) : node;
			}))
			.build();
		return new InstanceProxies(proxies, resources);
	}

	private static ClientResources.Builder clientResources() {
		return ClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ZERO, MAX_RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS));
	}

	/** The client resources every connection factory of the instance uses. */
	ClientResources resources() {
		return this.resources;
	}

	boolean isEmpty() {
		return this.proxies.isEmpty();
	}

	void cut() {
		this.proxies.forEach(RedisProxy::cut);
	}

	void blackHole() {
		this.proxies.forEach(RedisProxy::blackHole);
	}

	void latency(Duration oneWay) {
		this.proxies.forEach((proxy) -> proxy.latency(oneWay));
	}

	/** On every node's proxy: the next reply that one forwards is dropped and its connection reset. */
	void dropNextReplyAndReset() {
		this.proxies.forEach(RedisProxy::dropNextReplyAndReset);
	}

	void heal() {
		this.proxies.forEach(RedisProxy::heal);
	}

	@Override
	public void close() {
		this.proxies.forEach(RedisProxy::close);
		this.resources.shutdown();
	}

}
