package dev.baton.lock.annotation;

import java.time.Duration;

import dev.baton.lock.LockManager;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportAware;
import org.springframework.context.annotation.Role;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the infrastructure behind {@link EnableDistributedLocks @EnableDistributedLocks}:
 * the {@link DistributedLockAdvisor}, under {@link #ADVISOR_BEAN_NAME}.
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
public final class DistributedLockConfiguration implements ImportAware {

	/** The bean name of the {@link DistributedLockAdvisor}. */
	public static final String ADVISOR_BEAN_NAME = "dev.baton.lock.annotation.internalDistributedLockAdvisor";

	private @Nullable AnnotationAttributes attributes;

	@Override
	public void setImportMetadata(AnnotationMetadata importMetadata) {
		this.attributes = AnnotationAttributes
			.fromMap(importMetadata.getAnnotationAttributes(EnableDistributedLocks.class.getName()));
	}

	@Bean(name = ADVISOR_BEAN_NAME)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	DistributedLockAdvisor distributedLockAdvisor(ObjectProvider<LockManager> lockManager,
			ObjectProvider<DistributedLockAdvisorCustomizer> customizers) {
		DistributedLockAdvisor advisor = new DistributedLockAdvisor(lockManager::getObject, Duration.ZERO);
		if (this.attributes != null) {
			advisor.setOrder(this.attributes.<Integer>getNumber("order"));
			advisor.setFailOnUnproxiedCalls(this.attributes.getBoolean("failOnUnproxiedCalls"));
		}
		// resolved at first use: the advisor is created before most beans
		advisor.setCustomizers(customizers);
		return advisor;
	}

}
