package dev.baton.autoconfigure.actuate;

import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;
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

	/**
	 * When to show payloads, unreadable payloads and dead-letter reasons (masked as ****** otherwise); ids, counts and times are always shown.
	 */
	private Show showValues = Show.NEVER;

	/**
	 * Roles used to determine whether a user is authorized to be shown values with show-values=when-authorized. When empty, all authenticated users are authorized.
	 */
	private Set<String> roles = new LinkedHashSet<>();

	public Set<String> getWritableQueues() {
		return this.writableQueues;
	}

	public void setWritableQueues(Set<String> writableQueues) {
		this.writableQueues = writableQueues;
	}

	public Show getShowValues() {
		return this.showValues;
	}

	public void setShowValues(Show showValues) {
		this.showValues = showValues;
	}

	public Set<String> getRoles() {
		return this.roles;
	}

	public void setRoles(Set<String> roles) {
		this.roles = roles;
	}

}
