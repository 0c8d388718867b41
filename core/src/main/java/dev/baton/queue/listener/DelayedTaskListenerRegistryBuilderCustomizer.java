package dev.baton.queue.listener;

/**
 * Customizes the {@link DelayedTaskListenerRegistry.Builder} of the registry that
 * {@link dev.baton.queue.annotation.EnableDelayedTasks @EnableDelayedTasks} registers, for
 * example to set queue settings, a meter registry or the shutdown phase timeout. Declare one as a
 * bean; Spring Boot declares those that apply the {@code baton.queue.*} properties, virtual
 * threads and its observation and metrics registries.
 */
@FunctionalInterface
public interface DelayedTaskListenerRegistryBuilderCustomizer {

	/**
	 * Customize the builder.
	 * @param builder the builder of the registry
	 */
	void customize(DelayedTaskListenerRegistry.Builder builder);

}
