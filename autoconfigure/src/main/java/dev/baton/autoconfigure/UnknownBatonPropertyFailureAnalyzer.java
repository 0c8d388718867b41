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
 * Explains a start-up that failed on an unknown key under {@code baton.*}: each key with where it
 * was set and, when a known key is close, "did you mean"; the action lists the known keys. Ordered
 * before Boot's own analyzer of unbound properties, whose report starts with a dump of the bind
 * target.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class UnknownBatonPropertyFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> {

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
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
		StringBuilder description = new StringBuilder("Baton does not know these keys under " + prefix + ":\n");
		cause.getUnboundProperties()
			.stream()
			.sorted(Comparator.comparing(ConfigurationProperty::getName))
			.forEach((property) -> describe(property, prefix, known, description));
		return new FailureAnalysis(description.toString(), action(prefix, known), cause);
	}

	private static String action(String prefix, List<String> known) {
		boolean named = known.stream().anyMatch((key) -> key.contains("*"));
		return "Correct or remove them where the description says they are set (properties or YAML files, "
				+ "command-line arguments). The keys under " + prefix + " are: " + String.join(", ", known)
				+ (named ? " (a * is a name of your choosing)" : "") + "; docs/configuration.md describes each.";
	}

	private static void describe(ConfigurationProperty property, String prefix, List<String> known,
			StringBuilder description) {
		String name = property.getName().toString();
		description.append("\n    ").append(name);
		if (property.getOrigin() != null) {
			description.append(" (").append(property.getOrigin()).append(')');
		}
		String closest = PropertyKeys.closest(known, name.substring(prefix.length() + 1));
		if (closest != null) {
			description.append(": did you mean `").append(closest).append("`?");
		}
	}

}
