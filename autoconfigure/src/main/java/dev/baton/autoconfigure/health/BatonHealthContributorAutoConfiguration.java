package dev.baton.autoconfigure.health;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.baton.autoconfigure.lock.BatonLockAutoConfiguration;
import dev.baton.autoconfigure.queue.BatonQueueAutoConfiguration;
import dev.baton.lock.LockManagerStatus;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of
 * the {@code baton} health contributor: {@code locks} (the lock manager's store answers, renewals
 * succeed; for the one {@link LockManagerStatus} bean, if there is one) and {@code queues} (every
 * {@code @DelayedTask} container's loop runs and claims).
 */
@AutoConfiguration(after = { BatonLockAutoConfiguration.class, BatonQueueAutoConfiguration.class })
@ConditionalOnClass(HealthContributor.class)
@ConditionalOnEnabledHealthIndicator("baton")
public final class BatonHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "batonHealthContributor")
	CompositeHealthContributor batonHealthContributor(ObjectProvider<LockManagerStatus> lockManager,
			ObjectProvider<DelayedTaskListenerRegistry> listenerRegistry) {
		Map<String, HealthContributor> contributors = new LinkedHashMap<>();
		lockManager.ifUnique((manager) -> contributors.put("locks", new LockManagerHealthIndicator(manager)));
		listenerRegistry
			.ifUnique((registry) -> contributors.put("queues", new QueueListenersHealthIndicator(registry)));
		return CompositeHealthContributor.fromMap(contributors);
	}

}
