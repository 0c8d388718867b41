package dev.baton.autoconfigure.lock;

import java.util.function.Consumer;

import dev.baton.lock.annotation.DistributedLockAdvisor;
import dev.baton.lock.redis.RedisLockManager;

import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.thread.Threading;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * Applies {@code baton.lock.*} to what {@link BatonLockAutoConfiguration} builds: the lock
 * manager's builder, with Spring Boot's virtual threads, and the {@code @DistributedLock}
 * advisor. A value the builder or the advisor refuses fails naming its property.
 */
final class BatonLockConfigurer {

	private final BatonLockProperties properties;

	private final Environment environment;

	BatonLockConfigurer(BatonLockProperties properties, Environment environment) {
		this.properties = properties;
		this.environment = environment;
	}

	void configure(RedisLockManager.Builder builder) {
		PropertyMapper map = PropertyMapper.get();
		map.from(this.properties::getKeyPrefix).to(named("baton.lock.key-prefix", builder::keyPrefix));
		map.from(this.properties::getLeaseTime).to(named("baton.lock.lease-time", builder::leaseTime));
		map.from(this.properties::getCommandTimeout).to(named("baton.lock.command-timeout", builder::commandTimeout));
		map.from(this.properties::getMaxNameLength).to(named("baton.lock.max-name-length", builder::maxNameLength));
		map.from(this.properties::getMaxMetricGroups)
			.to(named("baton.lock.max-metric-groups", builder::maxMetricGroups));
		map.from(this.properties::getInstanceName).to(named("baton.lock.instance-name", builder::instanceName));
		map.from(this.properties::getReplicaAcknowledgement)
			.to(named("baton.lock.replica-acknowledgement",
					(replicas) -> builder.replicaAcknowledgement(replicas.getReplicas(), replicas.getTimeout())));
		if (Threading.VIRTUAL.isActive(this.environment)) {
			// The watchdog and release retries still run on platform threads: the builder keeps them off virtual ones.
			builder.threadFactory(new VirtualThreadTaskExecutor("baton-").getVirtualThreadFactory());
		}
	}

	/**
	 * Applies the settings of the {@code @DistributedLock} advisor. The order and
	 * fail-on-unproxied-calls are applied only when set, so that the attributes of an
	 * application's own {@code @EnableDistributedLocks} otherwise stay.
	 * @param advisor the advisor
	 */
	void configure(DistributedLockAdvisor advisor) {
		PropertyMapper map = PropertyMapper.get();
		Binder binder = Binder.get(this.environment);
		map.from(this.properties::getWaitTime).to(named("baton.lock.wait-time", advisor::setDefaultWaitTime));
		map.from(this.properties::getMaxKeys).to(named("baton.lock.max-keys", advisor::setMaxKeys));
		map.from(this.properties::getAspectOrder)
			.when((order) -> isSet(binder, "baton.lock.aspect-order"))
			.to(advisor::setOrder);
		map.from(this.properties::isFailOnUnproxiedCalls)
			.when((fail) -> isSet(binder, "baton.lock.fail-on-unproxied-calls"))
			.to(advisor::setFailOnUnproxiedCalls);
	}

	private static boolean isSet(Binder binder, String property) {
		return binder.bind(property, String.class).isBound();
	}

	/** The setter, naming the property if it refuses the value. */
	private static <T> Consumer<T> named(String property, Consumer<T> setter) {
		return (value) -> {
			try {
				setter.accept(value);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("Invalid " + property + ": " + ex.getMessage(), ex);
			}
		};
	}

}
