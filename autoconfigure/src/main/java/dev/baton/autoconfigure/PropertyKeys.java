package dev.baton.autoconfigure;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.core.ResolvableType;

/**
 * The keys a {@code @ConfigurationProperties} class of Baton's binds, relative to its prefix and
 * in configuration spelling ({@code lease-time}, {@code replica-acknowledgement.replicas},
 * {@code queues.*.concurrency} with {@code *} for a map key), and the one closest to a typo.
 */
public final class PropertyKeys {

	/** Most single-character edits between a typo and the key it is taken for. */
	private static final int MAX_DISTANCE = 2;

	private PropertyKeys() {
	}

	static List<String> of(Class<?> type) {
		List<String> keys = new ArrayList<>();
		collect(type, "", keys);
		keys.sort(null);
		return keys;
	}

	/**
	 * The known key closest to {@code unknown}, spelled with the map keys {@code unknown} uses.
	 * @param known the keys, as {@link #of(Class)} gives them
	 * @param unknown a key that is not one of them, relative to the same prefix
	 * @return the closest, or {@code null} if none is within {@value #MAX_DISTANCE} edits
	 */
	public static @Nullable String closest(List<String> known, String unknown) {
		String[] elements = unknown.split("\\.");
		@Nullable String best = null;
		int bestDistance = MAX_DISTANCE + 1;
		for (String key : known) {
			String[] parts = key.split("\\.");
			if (parts.length == elements.length) {
				for (int i = 0; i < parts.length; i++) {
					parts[i] = "*".equals(parts[i]) ? elements[i] : parts[i];
				}
				String candidate = String.join(".", parts);
				int distance = distance(candidate, unknown);
				if (distance < bestDistance) {
					best = candidate;
					bestDistance = distance;
				}
			}
		}
		return best;
	}

	private static void collect(Class<?> type, String prefix, List<String> keys) {
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			Method getter = property.getReadMethod();
			if (getter == null || getter.getDeclaringClass() == Object.class) {
				continue;
			}
			String key = prefix + DataObjectPropertyName.toDashedForm(property.getName());
			ResolvableType propertyType = ResolvableType.forMethodReturnType(getter);
			if (Map.class.isAssignableFrom(propertyType.toClass())) {
				collectValue(propertyType.asMap().getGeneric(1).toClass(), key + ".*", keys);
			}
			else {
				collectValue(propertyType.toClass(), key, keys);
			}
		}
	}

	/** Baton's own property classes nest; anything else (a String, a Duration, a Class) is a value. */
	private static void collectValue(Class<?> type, String key, List<String> keys) {
		if (type.getName().startsWith("dev.baton.autoconfigure.") && !type.isEnum()) {
			collect(type, key + ".", keys);
		}
		else {
			keys.add(key);
		}
	}

	/** Levenshtein distance: insertions, deletions and substitutions of one character. */
	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}
