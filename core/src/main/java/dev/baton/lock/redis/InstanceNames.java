package dev.baton.lock.redis;

import java.net.InetAddress;
import java.util.UUID;

import dev.baton.internal.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The readable instance name that a lock manager writes at the start of its owner ids
 * ({@code <instance>/<uuid>:<acquisition>}), so that an instance that waits in vain can say who
 * holds the lock. The random part keeps owner ids unique when two managers share a name.
 */
final class InstanceNames {

	/** Longest instance name: it is stored with every lock and shown in exception messages. */
	static final int MAX_LENGTH = 128;

	private static final char SEPARATOR = '/';

	private InstanceNames() {
	}

	/** This JVM's default name, {@code <hostname>:<pid>}, looked up once. */
	static String local() {
		return Local.NAME;
	}

	private static String lookUpLocal() {
		String pid = ":" + ProcessHandle.current().pid();
		String host = hostName();
		return host.substring(0, Math.min(host.length(), MAX_LENGTH - pid.length())) + pid;
	}

	/** Resolving the host name can take seconds where DNS is misconfigured: once per JVM is enough. */
	private static final class Local {

		static final String NAME = lookUpLocal();

	}

	private static String hostName() {
		try {
			String host = InetAddress.getLocalHost().getHostName();
			return (host.isBlank() || isUnfit(host)) ? "localhost" : host;
		}
		catch (Exception ex) {
			// No resolvable host name (a container without one, say): the pid still tells instances apart.
			return "localhost";
		}
	}

	/**
	 * Refuses a name that is blank, longer than {@value #MAX_LENGTH} characters, or has control
	 * characters.
	 */
	static String check(String name) {
		Assert.hasText(name, "Instance name must not be blank");
		Names.requireNoControlCharacters("Instance name", name);
		Assert.isTrue(name.length() <= MAX_LENGTH, () -> "Instance name of " + name.length()
				+ " characters is longer than the maximum of " + MAX_LENGTH);
		return name;
	}

	/** The start of the owner ids of a manager of the given name, unique to that manager. */
	static String ownerPrefix(String name) {
		return name + SEPARATOR + UUID.randomUUID() + ":";
	}

	/**
	 * The instance name in an owner id read from Redis.
	 * @return the name, or {@code null} for an id that has none (written by an earlier Baton) or
	 * one that is not fit to show
	 */
	static @Nullable String inOwner(@Nullable String owner) {
		int end = (owner != null) ? owner.lastIndexOf(SEPARATOR) : -1;
		if (end <= 0) {
			return null;
		}
		String name = owner.substring(0, end);
		return isUnfit(name) ? null : name;
	}

	private static boolean isUnfit(String name) {
		try {
			check(name);
			return false;
		}
		catch (IllegalArgumentException ex) {
			return true;
		}
	}

}
