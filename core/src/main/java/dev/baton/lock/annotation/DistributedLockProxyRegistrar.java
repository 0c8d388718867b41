package dev.baton.lock.annotation;

import java.util.Map;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure the context has an auto-proxy creator that applies infrastructure advisors, such as
 * the {@link DistributedLockAdvisor}, and makes it proxy classes if
 * {@link EnableDistributedLocks#proxyTargetClass()} asks for it.
 */
final class DistributedLockProxyRegistrar implements ImportBeanDefinitionRegistrar {

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		Map<String, Object> attributes = metadata.getAnnotationAttributes(EnableDistributedLocks.class.getName());
		if (attributes != null && Boolean.TRUE.equals(attributes.get("proxyTargetClass"))) {
			AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
		}
	}

}
