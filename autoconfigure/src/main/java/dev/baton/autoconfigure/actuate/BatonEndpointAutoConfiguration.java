package dev.baton.autoconfigure.actuate;

import dev.baton.autoconfigure.lock.BatonLockAutoConfiguration;
import dev.baton.autoconfigure.queue.BatonQueueAutoConfiguration;
import dev.baton.lock.RedisLockManager;
import dev.baton.queue.DelayQueue;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of
 * the {@code baton} actuator endpoint, created only when the endpoint is available (enabled and
 * exposed, as {@code management.endpoints.web.exposure.include=baton} does over HTTP).
 */
@AutoConfiguration(after = { BatonLockAutoConfiguration.class, BatonQueueAutoConfiguration.class })
@ConditionalOnClass(Endpoint.class)
public final class BatonEndpointAutoConfiguration {

	// actuator conditions on the methods: they are read only once Endpoint is known to be present
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint(BatonEndpoint.class)
	BatonEndpoint batonEndpoint(ObjectProvider<DelayQueue<?>> queues, ObjectProvider<RedisLockManager> lockManager) {
		return new BatonEndpoint(queues, lockManager);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(BatonEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	BatonEndpointWebExtension batonEndpointWebExtension(BatonEndpoint batonEndpoint) {
		return new BatonEndpointWebExtension(batonEndpoint);
	}

}
