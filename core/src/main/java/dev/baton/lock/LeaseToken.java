package dev.baton.lock;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;

import org.jspecify.annotations.Nullable;

/**
 * The only way back to a lock whose lease was {@linkplain LockLease#handOver() handed over}: pass
 * it to another thread, process or host (as {@link #asString()}, or as JSON: the record's
 * components), and {@link LockManager#restore(LeaseToken) restore} the lease there. Whoever has
 * the token can release the lock, so treat it as a secret: {@link #toString()} shows only a
 * fingerprint of the owner secret, and Baton never logs it.
 *
 * @param name the lock name
 * @param owner the owner id the lock is held under in Redis, with an unguessable part of 128 random
 * bits
 * @param fencingToken the fencing token of the acquisition, kept by every lease restored from it
 * @param leaseTime the lease time the lock was taken with, or {@code null} if it was renewed by a
 * watchdog, which the restoring instance's watchdog then continues
 */
public record LeaseToken(String name, String owner, long fencingToken, @Nullable Duration leaseTime) {

	private static final String PREFIX = "baton1";

	/** Random bytes in an owner secret: 128 bits. */
	private static final int SECRET_BYTES = 16;

	/** Characters of a secret of {@value #SECRET_BYTES} bytes in unpadded base64url. */
	private static final int SECRET_LENGTH = 22;

	private static final SecureRandom random = new SecureRandom();

	/**
	 * Checks the token's parts.
	 * @throws IllegalArgumentException naming the part that is missing or malformed
	 */
	public LeaseToken {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("Lease token has no lock name");
		}
		if (owner == null || secretLength(owner) < SECRET_LENGTH) {
			throw new IllegalArgumentException("Lease token of lock '" + name
					+ "' has no owner secret of 128 bits: it was truncated or not made by Baton");
		}
		if (fencingToken <= 0) {
			throw new IllegalArgumentException("Lease token of lock '" + name + "' has no fencing token");
		}
		if (leaseTime != null && (leaseTime.isNegative() || leaseTime.isZero())) {
			throw new IllegalArgumentException("Lease token of lock '" + name + "' has a lease time that is not positive");
		}
	}

	/**
	 * A new owner id for a lease handed over: the instance name, then a fresh secret of 128 random
	 * bits.
	 * @param instanceName the name of the instance that hands the lease over
	 * @return the owner id
	 */
	public static String newOwner(String instanceName) {
		byte[] secret = new byte[SECRET_BYTES];
		random.nextBytes(secret);
		return instanceName + "/" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret) + ":0";
	}

	/** The length of the part of an owner id between the instance name and the sequence number. */
	private static int secretLength(String owner) {
		int start = owner.lastIndexOf('/');
		int end = owner.lastIndexOf(':');
		return (start >= 0 && end > start) ? end - start - 1 : 0;
	}

	/**
	 * The token as one URL-safe string, for a message header, a job argument or a form field.
	 * @return the string, which {@link #parse(String)} reads back
	 */
	public String asString() {
		Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
		return PREFIX + "." + encoder.encodeToString(this.name.getBytes(StandardCharsets.UTF_8)) + "."
				+ encoder.encodeToString(this.owner.getBytes(StandardCharsets.UTF_8)) + "." + this.fencingToken + "."
				+ ((this.leaseTime != null) ? Long.toString(this.leaseTime.toMillis()) : "-");
	}

	/**
	 * Reads a token written by {@link #asString()}.
	 * @param text the string
	 * @return the token
	 * @throws IllegalArgumentException saying which part is missing or malformed; the message
	 * never repeats the text, which may carry the secret
	 */
	public static LeaseToken parse(String text) {
		if (text == null) {
			throw new IllegalArgumentException("Lease token must not be null");
		}
		String[] parts = text.split("\\.", -1);
		if (parts.length != 5 || !parts[0].equals(PREFIX)) {
			throw new IllegalArgumentException("Not a Baton lease token: expected 5 parts starting with '" + PREFIX
					+ "', got " + parts.length + " (truncated, or from another source)");
		}
		String name = decode(parts[1], "lock name");
		String owner = decode(parts[2], "owner secret");
		long fencingToken = number(parts[3], "fencing token");
		Duration leaseTime = parts[4].equals("-") ? null : Duration.ofMillis(number(parts[4], "lease time"));
		return new LeaseToken(name, owner, fencingToken, leaseTime);
	}

	private static String decode(String part, String what) {
		try {
			return new String(Base64.getUrlDecoder().decode(part), StandardCharsets.UTF_8);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Not a Baton lease token: its " + what + " is not base64url");
		}
	}

	private static long number(String part, String what) {
		try {
			return Long.parseLong(part);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("Not a Baton lease token: its " + what + " is not a number");
		}
	}

	/**
	 * A short fingerprint of the owner secret, to tell tokens apart in logs without revealing it.
	 * @return 8 hexadecimal digits of the secret's SHA-256
	 */
	public String fingerprint() {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(this.owner.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest, 0, 4);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
		}
	}

	/** Without the owner secret: its fingerprint only. */
	@Override
	public String toString() {
		return "LeaseToken[name=" + this.name + ", fencingToken=" + this.fencingToken + ", leaseTime="
				+ this.leaseTime + ", owner=#" + fingerprint() + "]";
	}

}
