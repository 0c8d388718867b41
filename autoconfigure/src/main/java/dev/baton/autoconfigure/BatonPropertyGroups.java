package dev.baton.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.baton.autoconfigure.lock.BatonLockProperties;
import dev.baton.autoconfigure.queue.BatonQueueProperties;
import dev.baton.autoconfigure.redis.BatonRedisProperties;
import dev.baton.autoconfigure.redis.BatonSentinelProperties;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.annotation.MergedAnnotations;

/**
 * The groups of Baton's properties ({@code baton.lock}, {@code baton.queue}, ...): the prefixes of
 * its {@code @ConfigurationProperties} classes, and every key in them.
 */
final class BatonPropertyGroups {

	/** Baton's properties classes; a test checks that none under {@code baton.} is missing. */
	private static final List<Class<?>> PROPERTIES = List.of(BatonLockProperties.class, BatonQueueProperties.class,
			BatonSentinelProperties.class, BatonRedisProperties.class);

	private BatonPropertyGroups() {
	}

	/** The groups, e.g. {@code baton.lock}, in the order of {@link #PROPERTIES}. */
	static List<String> prefixes() {
		return PROPERTIES.stream().map(BatonPropertyGroups::prefix).toList();
	}

	/** Every key of every group, in full: {@code baton.lock.lease-time}. */
	static List<String> keys() {
		List<String> keys = new ArrayList<>();
		for (Class<?> type : PROPERTIES) {
			String prefix = prefix(type);
			PropertyKeys.of(type).forEach((key) -> keys.add(prefix + "." + key));
		}
		return keys;
	}

	private static String prefix(Class<?> type) {
		return MergedAnnotations.from(type).get(ConfigurationProperties.class).getString("prefix");
	}

}
