package dev.baton.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

/**
 * Sanitizes what the {@link BatonEndpoint} shows of a task when its values are shown
 * ({@code management.endpoint.baton.show-values}): each payload, each stored JSON of an
 * unreadable payload and each dead-letter reason passes through it before it is written. Ids,
 * counts and times are not passed. Declare one as a bean, for example to mask account numbers
 * that the application's own masking serializers would hide: the endpoint's answer is written by
 * the actuator's mapper, not the application's.
 */
@FunctionalInterface
public interface BatonPayloadSanitizer {

	/** Shows every value as it is. */
	BatonPayloadSanitizer NONE = (queue, part, value) -> value;

	/**
	 * Sanitize one value.
	 * @param queue the queue name
	 * @param part what the value is
	 * @param value the payload as read (of the queue's payload type), or the unreadable payload's
	 * JSON or the reason as a string
	 * @return what to show instead, {@code null} to show nothing
	 */
	@Nullable Object sanitize(String queue, Part part, Object value);

	/**
	 * What a sanitized value is.
	 */
	enum Part {

		/** A task's or dead letter's payload, as read. */
		PAYLOAD,

		/** The stored JSON of a payload that cannot be read as the queue's payload type. */
		UNREADABLE_PAYLOAD,

		/** Why a dead letter failed. */
		REASON

	}

}
