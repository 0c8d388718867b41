package dev.baton.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * Loads Baton's Lua scripts. Each is read once into a string: a script backed by its resource
 * would check the resource for changes on every call, which costs more than the call itself.
 */
public final class LuaScripts {

	private LuaScripts() {
	}

	/**
	 * Loads a script that lies next to a class.
	 * @param anchor the class whose package holds the script
	 * @param name the file name, e.g. {@code acquire.lua}
	 * @param resultType the script's result type
	 * @param <T> the result type
	 * @return the script
	 * @throws IllegalStateException if the script is missing
	 */
	public static <T> RedisScript<T> load(Class<?> anchor, String name, Class<T> resultType) {
		return RedisScript.of(read(anchor, name), resultType);
	}

	/**
	 * Loads a script that lies next to a class, behind a file of functions it shares with other
	 * scripts.
	 * @param anchor the class whose package holds both files
	 * @param functions the file name of the shared functions
	 * @param name the file name of the script
	 * @param resultType the script's result type
	 * @param <T> the result type
	 * @return the script
	 * @throws IllegalStateException if a file is missing
	 */
	public static <T> RedisScript<T> load(Class<?> anchor, String functions, String name, Class<T> resultType) {
		return RedisScript.of(read(anchor, functions) + "\n" + read(anchor, name), resultType);
	}

	private static String read(Class<?> anchor, String name) {
		try (InputStream text = anchor.getResourceAsStream(name)) {
			if (text == null) {
				throw new IllegalStateException("Missing Lua script " + name + " next to " + anchor.getName());
			}
			return new String(text.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read Lua script " + name, ex);
		}
	}

}
