package dev.baton.autoconfigure.actuate;

import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code baton} actuator endpoint beyond Boot's own
 * ({@code management.endpoint.baton.access}).
 */
@ConfigurationProperties("management.endpoint.baton")
public class BatonEndpointProperties {

	/**
	 * Queues, besides those a @DelayedTask handler of this application consumes, that the endpoint's write operations may change.
	 */
	private Set<String> writableQueues = new LinkedHashSet<>();

	public Set<String> getWritableQueues() {
		return this.writableQueues;
	}

	public void setWritableQueues(Set<String> writableQueues) {
		this.writableQueues = writableQueues;
	}

}
