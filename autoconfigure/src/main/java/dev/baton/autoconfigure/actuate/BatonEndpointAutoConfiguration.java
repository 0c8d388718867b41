package dev.baton.autoconfigure.actuate;

import dev.baton.autoconfigure.lock.BatonLockAutoConfiguration;
import dev.baton.autoconfigure.queue.BatonQueueAutoConfiguration;
import dev.baton.lock.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of
 * the {@code baton} actuator endpoint, created only when the endpoint is available (enabled and
 * exposed, as {@code management.endpoints.web.exposure.include=baton} does over HTTP). Its writes
 * may change the queues this application consumes and those listed in
 * {@code management.endpoint.baton.writable-queues}. Payloads and reasons are shown as
 * {@code management.endpoint.baton.show-values} says, through the {@link BatonPayloadSanitizer}
 * bean if there is one.
 */
@AutoConfiguration(after = { BatonLockAutoConfiguration.class, BatonQueueAutoConfiguration.class })
@ConditionalOnClass(Endpoint.class)
@EnableConfigurationProperties(BatonEndpointProperties.class)
public final class BatonEndpointAutoConfiguration {

	// actuator conditions on the methods: they are read only once Endpoint is known to be present
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint(BatonEndpoint.class)
	BatonEndpoint batonEndpoint(ObjectProvider<DelayQueue<?>> queues, ObjectProvider<RedisLockManager> lockManager,
			ObjectProvider<DelayedTaskListenerRegistry> listeners, BatonEndpointProperties properties,
			ApplicationEventPublisher events, ObjectProvider<BatonPayloadSanitizer> sanitizer) {
		return new BatonEndpoint(queues, lockManager, (queue) -> properties.getWritableQueues().contains(queue)
				|| consumes(listeners.getIfAvailable(), queue), events, properties.getShowValues(),
				sanitizer.getIfAvailable(() -> BatonPayloadSanitizer.NONE));
	}

	private static boolean consumes(@Nullable DelayedTaskListenerRegistry listeners, String queue) {
		return listeners != null && listeners.getEndpoints().containsKey(queue);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(BatonEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	BatonEndpointWebExtension batonEndpointWebExtension(BatonEndpoint batonEndpoint,
			BatonEndpointProperties properties) {
		return new BatonEndpointWebExtension(batonEndpoint, properties.getShowValues(), properties.getRoles());
	}

}
