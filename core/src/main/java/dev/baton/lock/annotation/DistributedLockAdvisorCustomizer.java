package dev.baton.lock.annotation;

/**
 * Customizes the {@link DistributedLockAdvisor} that
 * {@link EnableDistributedLocks @EnableDistributedLocks} registers, for example to set
 * {@link DistributedLockAdvisor#setDefaultWaitTime the default wait time} or
 * {@link DistributedLockAdvisor#setMaxKeys the maximum number of keys}. Declare one as a bean; it
 * is applied when the advisor is first used, after the annotation's attributes, so it may depend
 * on ordinary beans. Spring Boot declares one that applies the {@code baton.lock.*} properties.
 */
@FunctionalInterface
public interface DistributedLockAdvisorCustomizer {

	/**
	 * Customize the advisor.
	 * @param advisor the advisor, not used yet
	 */
	void customize(DistributedLockAdvisor advisor);

}
