package dev.baton.queue.redis;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes and reads one queue's payloads as JSON.
 *
 * @param <T> the payload type
 */
final class PayloadCodec<T> {

	private final JsonMapper jsonMapper;

	private final Class<T> type;

	PayloadCodec(JsonMapper jsonMapper, Class<T> type) {
		this.jsonMapper = jsonMapper;
		this.type = type;
	}

	String write(T payload) {
		try {
			return this.jsonMapper.writeValueAsString(payload);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException(
					"Payload of type " + payload.getClass().getName() + " cannot be written as JSON: "
							+ ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * Read a payload.
	 * @throws JacksonException if the JSON does not make a payload of this queue's type
	 * @throws IllegalArgumentException if it is JSON null, or a custom deserializer threw
	 * anything else
	 */
	T read(String json) {
		T payload;
		try {
			payload = this.jsonMapper.readValue(json, this.type);
		}
		catch (JacksonException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			// A custom deserializer throws what it likes: callers must see an unreadable payload,
			// or one such task would fail the whole claimed batch on every claim
			throw new IllegalArgumentException(
					"Payload cannot be read as " + this.type.getName() + ": " + ex, ex);
		}
		if (payload == null) {
			throw new IllegalArgumentException("Payload is JSON null, not a " + this.type.getName());
		}
		return payload;
	}

}
