package dev.baton.autoconfigure;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Fails start-up on a property under {@code baton.} outside Baton's groups, such as
 * {@code baton.lokc.lease-time}: no properties class binds it, so nothing else would notice the
 * typo. Runs before any bean is created, so that the typo is what start-up reports, not a later
 * failure it may have caused.
 */
final class UnknownBatonPropertyGroupCheck implements BeanFactoryPostProcessor {

	private static final ConfigurationPropertyName BATON = ConfigurationPropertyName.of("baton");

	private final Environment environment;

	UnknownBatonPropertyGroupCheck(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		List<ConfigurationPropertyName> groups = BatonPropertyGroups.prefixes()
			.stream()
			.map(ConfigurationPropertyName::of)
			.toList();
		Map<ConfigurationPropertyName, ConfigurationProperty> unknown = new LinkedHashMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (!(source instanceof IterableConfigurationPropertySource names) || isSystemEnvironment(source)) {
				continue;
			}
			for (ConfigurationPropertyName name : names) {
				if (!BATON.isAncestorOf(name) || unknown.containsKey(name)) {
					continue;
				}
				if (groups.stream().noneMatch((group) -> group.equals(name) || group.isAncestorOf(name))) {
					// The first source has the highest precedence: its origin is the one in effect.
					unknown.put(name, source.getConfigurationProperty(name));
				}
			}
		}
		if (!unknown.isEmpty()) {
			throw new UnknownBatonPropertyGroupException(new LinkedHashSet<>(unknown.values()));
		}
	}

	/**
	 * Variables such as BATON_HOME, set by other tools on the host, map to {@code baton.home}:
	 * refusing them would stop every application there.
	 */
	private static boolean isSystemEnvironment(ConfigurationPropertySource source) {
		return source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
	}

}
