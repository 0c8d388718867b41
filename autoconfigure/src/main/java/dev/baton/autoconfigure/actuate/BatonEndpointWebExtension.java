package dev.baton.autoconfigure.actuate;

import java.util.Set;

import dev.baton.autoconfigure.actuate.BatonEndpoint.LocksReleased;
import dev.baton.autoconfigure.actuate.BatonEndpoint.QueueDescriptor;
import dev.baton.autoconfigure.actuate.BatonEndpoint.TaskChange;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * HTTP statuses for the {@link BatonEndpoint}'s write and delete operations: 200 with the
 * {@link TaskChange} when it changed something, 404 when the queue, the dead letter or the
 * waiting task does not exist, 403 when the queue is not writable. A queue read shows payloads and
 * reasons to whom {@code management.endpoint.baton.show-values} and {@code roles} allow.
 */
@EndpointWebExtension(endpoint = BatonEndpoint.class)
public class BatonEndpointWebExtension {

	private static final int STATUS_FORBIDDEN = 403;

	private final BatonEndpoint endpoint;

	private final Show showValues;

	private final Set<String> roles;

	/**
	 * Create the extension.
	 * @param endpoint the endpoint it extends
	 * @param showValues when payloads and reasons are shown rather than masked
	 * @param roles the roles that may see them with {@link Show#WHEN_AUTHORIZED}, any
	 * authenticated user when empty
	 */
	public BatonEndpointWebExtension(BatonEndpoint endpoint, Show showValues, Set<String> roles) {
		this.endpoint = endpoint;
		this.showValues = showValues;
		this.roles = roles;
	}

	/**
	 * {@code GET /actuator/baton/queues/{name}?limit=20}, optionally with
	 * {@code &from=...&to=...&pageToken=...} for a page of the tasks due in a window.
	 * @param section must be {@code queues}
	 * @param name the queue name
	 * @param limit how many tasks and dead letters to list
	 * @param from ISO-8601 start of the due window, or {@code null}
	 * @param to ISO-8601 end of the due window, or {@code null}
	 * @param pageToken the token of the window's page to read, or {@code null}
	 * @param security who asks, to decide whether payloads and reasons are shown
	 * @return 200 with the queue, or 404
	 * @see BatonEndpoint#queue(String, String, Integer, String, String, String)
	 */
	@ReadOperation
	public WebEndpointResponse<QueueDescriptor> queue(@Selector String section, @Selector String name,
			@Nullable Integer limit, @Nullable String from, @Nullable String to, @Nullable String pageToken,
			SecurityContext security) {
		QueueDescriptor queue = this.endpoint.queue(section, name, limit, DueWindowRequest.of(from, to, pageToken),
				this.showValues.isShown(security, this.roles));
		return (queue != null) ? new WebEndpointResponse<>(queue)
				: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/**
	 * {@code POST /actuator/baton/queues/{name}/dead-letters/{id}/redrive}.
	 * @param section must be {@code queues}
	 * @param name the queue name
	 * @param kind must be {@code dead-letters}
	 * @param id the task id
	 * @param action must be {@code redrive}
	 * @param security who asks, for the audit
	 * @return 200 with the change, 403 or 404
	 * @see BatonEndpoint#redrive(String, String, String, String, String, SecurityContext)
	 */
	@WriteOperation
	public WebEndpointResponse<TaskChange> redrive(@Selector String section, @Selector String name,
			@Selector String kind, @Selector String id, @Selector String action, SecurityContext security) {
		return response(this.endpoint.redrive(section, name, kind, id, action, security));
	}

	/**
	 * {@code DELETE /actuator/baton/queues/{name}/dead-letters/{id}} and
	 * {@code DELETE /actuator/baton/queues/{name}/tasks/{id}}.
	 * @param section must be {@code queues}
	 * @param name the queue name
	 * @param kind {@code dead-letters} or {@code tasks}
	 * @param id the task id
	 * @param security who asks, for the audit
	 * @return 200 with the change, 403 or 404
	 * @see BatonEndpoint#delete(String, String, String, String, SecurityContext)
	 */
	@DeleteOperation
	public WebEndpointResponse<TaskChange> delete(@Selector String section, @Selector String name,
			@Selector String kind, @Selector String id, SecurityContext security) {
		return response(this.endpoint.delete(section, name, kind, id, security));
	}

	/**
	 * {@code DELETE /actuator/baton/locks}.
	 * @param section must be {@code locks}
	 * @param security who asks, for the audit
	 * @return 200 with how many were released, or 404
	 * @see BatonEndpoint#releaseLocks(String, SecurityContext)
	 */
	@DeleteOperation
	public WebEndpointResponse<LocksReleased> releaseLocks(@Selector String section, SecurityContext security) {
		LocksReleased released = this.endpoint.releaseLocks(section, security);
		return (released != null) ? new WebEndpointResponse<>(released)
				: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

	private static WebEndpointResponse<TaskChange> response(@Nullable TaskChange change) {
		if (change == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		int status = switch (change.outcome()) {
			case DONE -> WebEndpointResponse.STATUS_OK;
			case NOT_FOUND -> WebEndpointResponse.STATUS_NOT_FOUND;
			case REFUSED -> STATUS_FORBIDDEN;
			// only audited: the endpoint throws the operation's exception instead of returning it
			case FAILED -> WebEndpointResponse.STATUS_INTERNAL_SERVER_ERROR;
		};
		return new WebEndpointResponse<>(change, status);
	}

}
