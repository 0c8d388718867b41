package dev.baton.lock.annotation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.data.redis.core.StringRedisTemplate;

/** Records whether a lock key exists in Redis at given moments. */
class LockObserver {

	private final StringRedisTemplate redis;

	private final List<String> seen = new CopyOnWriteArrayList<>();

	private volatile String key = "none";

	LockObserver(StringRedisTemplate redis) {
		this.redis = redis;
	}

	void watch(String key) {
		this.key = key;
	}

	void record(String moment) {
		if (!this.key.equals("none")) {
			this.seen.add(moment + ": " + (this.redis.hasKey(this.key) ? "locked" : "free"));
		}
	}

	List<String> seen() {
		return this.seen;
	}

}
