package dev.baton.queue.redis;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.baton.lock.LeaseToken;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The trace context of a task as its meta stores it, after the fixed fields: {@code ""} without
 * one, else {@code "|name=value"} per field, fields apart by a newline. Propagation fields are
 * header-like, so names hold no {@code =} and neither names nor values hold a newline; fields
 * that do are left out rather than corrupt the meta.
 */
final class TraceContextCodec {

	/**
	 * The field that carries the token of the lock a task holds ({@link TaskMeta#lease()}), kept
	 * beside the trace context so that every rewrite of the meta keeps it too; a propagation field
	 * of that name is left out.
	 */
	static final String LEASE_FIELD = "baton-lease";

	/** The most characters stored per task, so that large baggage cannot bloat every task. */
	static final int MAX_LENGTH = 4096;

	private static final Log logger = LogFactory.getLog(TraceContextCodec.class);

	private TraceContextCodec() {
	}

	static String encode(Map<String, String> fields) {
		if (fields.isEmpty()) {
			return "";
		}
		StringBuilder encoded = new StringBuilder();
		fields.forEach((name, value) -> {
			if (!name.isEmpty() && !name.equals(LEASE_FIELD) && name.indexOf('=') < 0 && name.indexOf('\n') < 0 && value.indexOf('\n') < 0) {
				encoded.append(encoded.isEmpty() ? '|' : '\n').append(name).append('=').append(value);
			}
		});
		if (encoded.length() > MAX_LENGTH) {
			logger.warn("Trace context of " + encoded.length() + " characters is longer than " + MAX_LENGTH
					+ " (large baggage?); the task is stored without it and its handling starts a new trace");
			return "";
		}
		return encoded.toString();
	}

	/** An encoded trace context with the token of the lock the task holds added. */
	static String withLease(String encoded, LeaseToken lease) {
		return encoded + (encoded.isEmpty() ? '|' : '\n') + LEASE_FIELD + "=" + lease.asString();
	}

	/** The fields of an encoded trace context, which starts with {@code |} or is empty. */
	static Map<String, String> decode(String encoded) {
		if (encoded.isEmpty()) {
			return Map.of();
		}
		Map<String, String> fields = new LinkedHashMap<>();
		for (String field : encoded.substring(1).split("\n")) {
			int equals = field.indexOf('=');
			if (equals > 0) {
				fields.put(field.substring(0, equals), field.substring(equals + 1));
			}
		}
		return fields;
	}

}
