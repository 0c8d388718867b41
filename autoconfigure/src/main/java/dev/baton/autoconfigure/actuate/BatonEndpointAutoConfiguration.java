package dev.baton.autoconfigure.actuate;

import dev.baton.autoconfigure.lock.BatonLockAutoConfiguration;
import dev.baton.autoconfigure.queue.BatonQueueAutoConfiguration;
import dev.baton.lock.LockManagerStatus;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.listener.DelayedTaskListenerRegistry;
import jakarta.servlet.Filter;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointProperties;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of
 * the {@code baton} actuator endpoint, created only when the endpoint is available (enabled and
 * exposed, as {@code management.endpoints.web.exposure.include=baton} does over HTTP). Its writes
 * may change the queues this application consumes and those listed in
 * {@code management.endpoint.baton.writable-queues}. Payloads and reasons are shown as
 * {@code management.endpoint.baton.show-values} says, through the {@link BatonPayloadSanitizer}
 * bean if there is one. In a servlet application, a filter answers 415 to the writes a cross-site
 * page could send (see {@link BatonEndpointCrossSiteFilter}).
 */
@AutoConfiguration(after = { BatonLockAutoConfiguration.class, BatonQueueAutoConfiguration.class })
@ConditionalOnClass(Endpoint.class)
@EnableConfigurationProperties(BatonEndpointProperties.class)
public final class BatonEndpointAutoConfiguration {

	// actuator conditions on the methods: they are read only once Endpoint is known to be present
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint(BatonEndpoint.class)
	BatonEndpoint batonEndpoint(ObjectProvider<DelayQueue<?>> queues, ObjectProvider<LockManagerStatus> lockManager,
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

	/** The endpoint's {@link BatonEndpointCrossSiteFilter}, in a servlet application's server. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Filter.class)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	static final class CrossSiteFilterConfiguration {

		private static final String DEFAULT_BASE_PATH = "/actuator";

		@Bean
		@ConditionalOnAvailableEndpoint(endpoint = BatonEndpoint.class, exposure = EndpointExposure.WEB)
		FilterRegistrationBean<BatonEndpointCrossSiteFilter> batonEndpointCrossSiteFilter(
				ObjectProvider<WebEndpointProperties> endpoints, Environment environment) {
			FilterRegistrationBean<BatonEndpointCrossSiteFilter> registration = new FilterRegistrationBean<>(
					new BatonEndpointCrossSiteFilter());
			registration.addUrlPatterns(endpointPath(endpoints.getIfAvailable(), environment) + "/*");
			registration.setOrder(BatonEndpointCrossSiteFilter.ORDER);
			return registration;
		}

		// as the request sees it: the dispatcher servlet's path, the actuator base path, the endpoint's mapping
		private static String endpointPath(@Nullable WebEndpointProperties endpoints, Environment environment) {
			String servletPath = environment.getProperty("spring.mvc.servlet.path", "").replaceAll("/\\*?$", "");
			String basePath = (endpoints != null) ? endpoints.getBasePath() : DEFAULT_BASE_PATH;
			String mapping = (endpoints != null) ? endpoints.getPathMapping().getOrDefault("baton", "baton") : "baton";
			return servletPath + basePath + "/" + mapping;
		}

	}

}
