package dev.baton.autoconfigure;

import java.util.Set;

import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;

/**
 * Properties under {@code baton.} in none of {@linkplain BatonPropertyGroups Baton's groups}, such
 * as {@code baton.lokc.lease-time}. An unbound-properties failure like the one Boot raises for an
 * unknown key within a group, so that one analyzer reports both.
 */
final class UnknownBatonPropertyGroupException extends UnboundConfigurationPropertiesException {

	UnknownBatonPropertyGroupException(Set<ConfigurationProperty> unknown) {
		super(unknown);
	}

}
