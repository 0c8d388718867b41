package dev.baton.queue.redis;

import java.nio.charset.StandardCharsets;

import dev.baton.queue.PayloadEnvelope;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes and reads one queue's payloads as JSON.
 *
 * <p>Lenient by default, as the application's mapper is (Jackson 3 ignores unknown properties and
 * leaves missing ones null), so that payloads written by an older or newer version of the
 * application still reach the handler during a rolling deploy. Strict, a payload with a property
 * the type does not have, or without one of its creator properties, cannot be read, and is
 * dead-lettered rather than handled half-empty. The {@link PayloadEnvelope} seals the JSON before
 * it is stored and opens what is read.
 *
 * @param <T> the payload type
 */
final class PayloadCodec<T> {

	private final JsonMapper jsonMapper;

	private final String queue;

	private final PayloadEnvelope envelope;

	private final ObjectReader reader;

	private final Class<T> type;

	/** The most bytes of JSON a payload may take. */
	private final int maxSize;

	/** The type that payloads are read as. */
	Class<T> type() {
		return this.type;
	}

	PayloadCodec(JsonMapper jsonMapper, String queue, PayloadEnvelope envelope, Class<T> type, boolean strict,
			int maxSize) {
		this.jsonMapper = jsonMapper;
		this.queue = queue;
		this.envelope = envelope;
		ObjectReader reader = jsonMapper.readerFor(type);
		this.reader = strict ? reader.with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
				DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES) : reader;
		this.type = type;
		this.maxSize = maxSize;
	}

	/**
	 * Write the payload of a task, sealed.
	 * @throws IllegalArgumentException if it cannot be written, or its JSON is larger than the
	 * maximum
	 */
	String write(String id, T payload) {
		String json;
		try {
			json = this.jsonMapper.writeValueAsString(payload);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException(
					"Payload of type " + payload.getClass().getName() + " cannot be written as JSON: "
							+ ex.getOriginalMessage(), ex);
		}
		// A char takes at most 3 bytes in UTF-8: only a long JSON needs counting
		if (json.length() > this.maxSize / 3) {
			int size = json.getBytes(StandardCharsets.UTF_8).length;
			if (size > this.maxSize) {
				throw new IllegalArgumentException("Payload of task '" + id + "' is " + size + " bytes as JSON, more "
						+ "than the " + this.maxSize + " a queue accepts (max payload size)");
			}
		}
		return this.envelope.seal(this.queue, id, json);
	}

	/**
	 * Read the stored payload of a task.
	 * @throws JacksonException if the JSON does not make a payload of this queue's type
	 * @throws IllegalArgumentException if it does not open, is JSON null, or a custom deserializer
	 * or the envelope threw anything else
	 */
	T read(String id, String stored) {
		T payload;
		try {
			payload = this.reader.readValue(this.envelope.open(this.queue, id, stored));
		}
		catch (JacksonException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			// A custom deserializer or envelope throws what it likes: callers must see an unreadable payload,
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
