package dev.baton.queue.listener;

import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;

/** A payload whose custom deserializer refuses ids starting with "bad" with a plain exception. */
@JsonDeserialize(using = Fragile.Reader.class)
record Fragile(String id) {

	static final class Reader extends ValueDeserializer<Fragile> {

		@Override
		public Fragile deserialize(JsonParser parser, DeserializationContext context) {
			String id = context.readTree(parser).get("id").asString();
			if (id.startsWith("bad")) {
				throw new IllegalStateException("refusing " + id);
			}
			return new Fragile(id);
		}

	}

}
