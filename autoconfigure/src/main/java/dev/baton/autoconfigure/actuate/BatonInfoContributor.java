package dev.baton.autoconfigure.actuate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * Adds {@code baton} to the info endpoint: Baton's version and, when enabled, the Redis server's
 * version and mode (see {@link RedisServerInfo}).
 */
final class BatonInfoContributor implements InfoContributor {

	private static final String VERSION_RESOURCE = "baton-version.properties";

	private final @Nullable RedisServerInfo redis;

	private final String batonVersion = batonVersion();

	BatonInfoContributor(@Nullable RedisServerInfo redis) {
		this.redis = redis;
	}

	@Override
	public void contribute(Info.Builder builder) {
		Map<String, Object> baton = new LinkedHashMap<>();
		baton.put("version", this.batonVersion);
		if (this.redis != null) {
			baton.put("redis", this.redis.get());
		}
		builder.withDetail("baton", baton);
	}

	private static String batonVersion() {
		try (InputStream in = BatonInfoContributor.class.getResourceAsStream(VERSION_RESOURCE)) {
			Properties properties = new Properties();
			if (in != null) {
				properties.load(in);
			}
			@Nullable String version = properties.getProperty("version");
			return (version != null) ? version : "unknown";
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + VERSION_RESOURCE, ex);
		}
	}

}
