package dev.baton.autoconfigure;

import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Explains a start-up that failed on an unknown key under {@code baton.*}, within one of Baton's
 * groups ({@code baton.lock.lease-tme}) or outside them ({@code baton.lokc.lease-time}): each key
 * with where it was set and, when a known key is close, "did you mean"; the action lists the known
 * keys, or the groups. Ordered before Boot's own analyzer of unbound properties, whose report
 * starts with a dump of the bind target.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class UnknownBatonPropertyFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> {

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
		if (cause instanceof UnknownBatonPropertyGroupException) {
			List<String> groups = BatonPropertyGroups.prefixes();
			return analysis(cause, "", BatonPropertyGroups.keys(),
					"These keys are under baton. but in none of Baton's groups (" + String.join(", ", groups) + "):\n",
					"Baton's keys are under " + String.join(", ", groups));
		}
		BindException bind = findCause(rootFailure, BindException.class);
		if (bind == null || !bind.getName().toString().startsWith("baton.")) {
			return null; // not Baton's: Boot's own analyzer reports it
		}
		Class<?> type = bind.getTarget().getType().resolve();
		if (type == null) {
			return null;
		}
		String prefix = bind.getName().toString();
		List<String> known = PropertyKeys.of(type);
		boolean named = known.stream().anyMatch((key) -> key.contains("*"));
		return analysis(cause, prefix, known, "Baton does not know these keys under " + prefix + ":\n",
				"The keys under " + prefix + " are: " + String.join(", ", known)
						+ (named ? " (a * is a name of your choosing)" : ""));
	}

	/**
	 * The analysis of unknown keys.
	 * @param prefix what the known keys are relative to, or empty if they are full keys
	 * @param known the keys a typo may be taken for
	 * @param keys what the action says of the known keys
	 */
	private static FailureAnalysis analysis(UnboundConfigurationPropertiesException cause, String prefix,
			List<String> known, String heading, String keys) {
		StringBuilder description = new StringBuilder(heading);
		cause.getUnboundProperties()
			.stream()
			.sorted(Comparator.comparing(ConfigurationProperty::getName))
			.forEach((property) -> describe(property, prefix, known, description));
		return new FailureAnalysis(description.toString(),
				"Correct or remove them where the description says they are set (properties or YAML files, "
						+ "command-line arguments). " + keys + "; docs/configuration.md describes each.",
				cause);
	}

	private static void describe(ConfigurationProperty property, String prefix, List<String> known,
			StringBuilder description) {
		String name = property.getName().toString();
		description.append("\n    ").append(name);
		if (property.getOrigin() != null) {
			description.append(" (").append(property.getOrigin()).append(')');
		}
		String closest = PropertyKeys.closest(known, prefix.isEmpty() ? name : name.substring(prefix.length() + 1));
		if (closest != null) {
			description.append(": did you mean `").append(closest).append("`?");
		}
	}

}
