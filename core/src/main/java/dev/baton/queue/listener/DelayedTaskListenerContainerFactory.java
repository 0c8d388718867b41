package dev.baton.queue.listener;

/**
 * Creates the {@link DelayedTaskContainer} of a registered {@code @DelayedTask} handler. The
 * default builds Baton's container with the registry's settings, error handler, metrics and
 * observation; a bean of this type (or
 * {@link DelayedTaskListenerRegistry.Builder#containerFactory}) replaces it, for example to wrap
 * each container.
 */
@FunctionalInterface
public interface DelayedTaskListenerContainerFactory {

	/**
	 * Create a container, not started.
	 * @param endpoint the handler, with the settings of its queue merged in
	 * ({@link DelayedTaskEndpoint#settings(ListenerSettings)} applied to the queue's settings)
	 * @return the container
	 */
	DelayedTaskContainer createContainer(DelayedTaskEndpoint endpoint);

}
