package dev.baton.queue.redis;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;

/**
 * Keeps Redis from choosing which classes are instantiated when a payload is read: whoever can
 * write to Redis could otherwise name a gadget class in a stored payload.
 */
final class PayloadTypeIds {

	private static final Log logger = LogFactory.getLog(RedisDelayQueues.class);

	private PayloadTypeIds() {
	}

	/**
	 * The mapper payloads are written and read with: the given one, without default typing if it
	 * has it (some applications enable it for caches), since default typing reads class names
	 * from the JSON for every non-final type.
	 */
	static JsonMapper withoutDefaultTyping(JsonMapper mapper) {
		if (mapper.deserializationConfig().getDefaultTyper(mapper.constructType(Object.class)) == null) {
			return mapper;
		}
		logger.warn("The JSON mapper has default typing: Baton writes and reads payloads without it, so that a "
				+ "payload in Redis cannot name the class to instantiate. Give a polymorphic payload type "
				+ "@JsonTypeInfo(use = Id.NAME) and @JsonSubTypes");
		return mapper.rebuild().deactivateDefaultTyping().build();
	}

	/**
	 * Warn if a queue's payload type takes the class to instantiate from the stored JSON
	 * ({@code @JsonTypeInfo(use = Id.CLASS)} or {@code MINIMAL_CLASS}, on it or a supertype).
	 */
	static void warnOfClassNames(String queue, Class<?> payloadType) {
		MergedAnnotation<JsonTypeInfo> typeInfo = MergedAnnotations.from(payloadType, SearchStrategy.TYPE_HIERARCHY)
			.get(JsonTypeInfo.class);
		if (!typeInfo.isPresent()) {
			return;
		}
		JsonTypeInfo.Id use = typeInfo.getEnum("use", JsonTypeInfo.Id.class);
		if (use == JsonTypeInfo.Id.CLASS || use == JsonTypeInfo.Id.MINIMAL_CLASS) {
			logger.warn("Payload type " + payloadType.getName() + " of queue '" + queue + "' has @JsonTypeInfo(use = Id."
					+ use.name() + "): a payload in Redis names the class to instantiate, any subtype on the class "
					+ "path. Prefer Id.NAME with @JsonSubTypes, which instantiates only the listed types");
		}
	}

}
