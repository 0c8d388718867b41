package dev.baton.autoconfigure.actuate;

import java.util.Objects;

import dev.baton.autoconfigure.actuate.BatonPayloadSanitizer.Part;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SanitizableData;

/**
 * What one read of the {@link BatonEndpoint} shows of a queue's payloads, unreadable payloads and
 * reasons: {@value SanitizableData#SANITIZED_VALUE} unless values are shown, else what the
 * sanitizer makes of them. An absent value stays absent: that a payload could not be read is no
 * value.
 */
final class ShownValues {

	private final String queue;

	private final boolean shown;

	private final BatonPayloadSanitizer sanitizer;

	ShownValues(String queue, boolean shown, BatonPayloadSanitizer sanitizer) {
		this.queue = queue;
		this.shown = shown;
		this.sanitizer = sanitizer;
	}

	@Nullable Object payload(@Nullable Object payload) {
		return show(Part.PAYLOAD, payload);
	}

	@Nullable String text(Part part, @Nullable String text) {
		return Objects.toString(show(part, text), null);
	}

	private @Nullable Object show(Part part, @Nullable Object value) {
		if (value == null) {
			return null;
		}
		return this.shown ? this.sanitizer.sanitize(this.queue, part, value) : SanitizableData.SANITIZED_VALUE;
	}

}
