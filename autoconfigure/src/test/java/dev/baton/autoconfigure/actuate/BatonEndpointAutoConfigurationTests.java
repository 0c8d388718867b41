package dev.baton.autoconfigure.actuate;

import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointProperties;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** Wiring only: these contexts never talk to Redis. */
class BatonEndpointAutoConfigurationTests {

	private static final String CROSS_SITE_FILTER = "batonEndpointCrossSiteFilter";

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				BatonEndpointAutoConfiguration.class, BatonInfoContributorAutoConfiguration.class));

	@Test
	void createsEndpointAndWebExtensionWhenExposedOverWeb() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=baton").run((context) -> {
			assertThat(context).hasSingleBean(BatonEndpoint.class);
			assertThat(context).hasSingleBean(BatonEndpointWebExtension.class);
		});
	}

	@Test
	void createsNoEndpointUnlessExposed() {
		this.runner.run((context) -> {
			assertThat(context).doesNotHaveBean(BatonEndpoint.class);
			assertThat(context).doesNotHaveBean(BatonEndpointWebExtension.class);
			assertThat(context).doesNotHaveBean(CROSS_SITE_FILTER);
		});
	}

	@Test
	void registersCrossSiteFilterForTheEndpointsPathOnly() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=baton")
			.run((context) -> assertThat(crossSiteFilter(context).getUrlPatterns())
				.containsExactly("/actuator/baton/*"));
	}

	@Test
	void crossSiteFilterFollowsServletPathBasePathAndPathMapping() {
		WebEndpointProperties endpoints = new WebEndpointProperties();
		endpoints.setBasePath("/manage");
		endpoints.getPathMapping().put("baton", "queues");
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=baton", "spring.mvc.servlet.path=/api/")
			.withBean(WebEndpointProperties.class, () -> endpoints)
			.run((context) -> assertThat(crossSiteFilter(context).getUrlPatterns())
				.containsExactly("/api/manage/queues/*"));
	}

	@Test
	void registersNoCrossSiteFilterOutsideAServletApplication() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					BatonEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=baton")
			.run((context) -> {
				assertThat(context).hasSingleBean(BatonEndpoint.class);
				assertThat(context).doesNotHaveBean(CROSS_SITE_FILTER);
			});
	}

	@Test
	void createsNoEndpointWhenAccessIsNone() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=baton",
					"management.endpoint.baton.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(BatonEndpoint.class));
	}

	@Test
	void backsOffWhenUserDefinesBatonEndpoint() {
		BatonEndpoint own = ownEndpoint();
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=baton")
			.withBean("ownEndpoint", BatonEndpoint.class, () -> own)
			.run((context) -> assertThat(context).getBean(BatonEndpoint.class).isSameAs(own));
	}

	@Test
	void backsOffWhenUserDefinesBatonEndpointWebExtension() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=baton")
			.withBean("ownExtension", BatonEndpointWebExtension.class,
					() -> new BatonEndpointWebExtension(ownEndpoint(), Show.NEVER, Set.of()))
			.run((context) -> assertThat(context).getBeanNames(BatonEndpointWebExtension.class)
				.containsExactly("ownExtension"));
	}

	@Test
	void createsNothingWithoutActuator() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=baton")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean("batonEndpoint");
				assertThat(context).doesNotHaveBean("batonEndpointWebExtension");
				assertThat(context).doesNotHaveBean(CROSS_SITE_FILTER);
				assertThat(context).doesNotHaveBean("batonInfoContributor");
			});
	}

	@Test
	void createsInfoContributorWithActuator() {
		this.runner.run((context) -> assertThat(context).hasBean("batonInfoContributor"));
	}

	private static FilterRegistrationBean<?> crossSiteFilter(ApplicationContext context) {
		return context.getBean(CROSS_SITE_FILTER, FilterRegistrationBean.class);
	}

	private static BatonEndpoint ownEndpoint() {
		return new BatonEndpoint(emptyProvider(), emptyProvider(), (queue) -> false, (event) -> {
		}, Show.NEVER, BatonPayloadSanitizer.NONE);
	}

	private static <T> ObjectProvider<T> emptyProvider() {
		return new ObjectProvider<>() {

			@Override
			public T getObject(Object... args) {
				throw new UnsupportedOperationException();
			}

			@Override
			public T getIfAvailable() {
				return null;
			}

			@Override
			public T getIfUnique() {
				return null;
			}

		};
	}

}
