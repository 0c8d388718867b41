package dev.baton.queue.redis;

import java.util.List;

import dev.baton.internal.LuaScripts;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts that change and read a queue, loaded once from the resources next to this
 * class, each behind the functions they share ({@code common.lua}). Every script returns an
 * array.
 */
enum QueueScript {

	SCHEDULE("schedule.lua"), CLAIM("claim.lua"), SETTLE("settle.lua"), CANCEL("cancel.lua"),
	RESCHEDULE("reschedule.lua"), REDRIVE("redrive.lua"), PURGE_DEAD_LETTER("purge-dead-letter.lua"),
	FIND("find.lua"), PEEK("peek.lua"), STATS("stats.lua"), DEAD_LETTERS("dead-letters.lua"),
	ADVANCE("advance.lua"),
	DUE_WINDOW("due-window.lua"), COUNT_DUE("count-due.lua"), PARTITION_COUNT("partition-count.lua"), SET_PARTITIONS("set-partitions.lua");

	private final RedisScript<List<Object>> script;

	QueueScript(String resource) {
		this.script = listScript(resource);
	}

	/** The script, for {@link dev.baton.internal.TimedScripts}. */
	RedisScript<List<Object>> script() {
		return this.script;
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static RedisScript<List<Object>> listScript(String resource) {
		return (RedisScript) LuaScripts.load(QueueScript.class, "common.lua", resource, List.class);
	}

}
