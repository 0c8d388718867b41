package dev.baton;

import java.util.List;

import dev.baton.test.RedisServer;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

@RedisTest
class RedisConnectivityTests {

	@Test
	void talksToARealServer(StringRedisTemplate redis, RedisServer server) {
		redis.opsForValue().set("baton:smoke", "hello");

		assertThat(redis.opsForValue().get("baton:smoke")).isEqualTo("hello");
		assertThat(server.version()).matches("\\d+\\.\\d+\\.\\d+");
	}

	@Test
	void runsLuaScripts(StringRedisTemplate redis) {
		RedisScript<Long> append = RedisScript.of("return redis.call('APPEND', KEYS[1], ARGV[1])", Long.class);

		redis.execute(append, List.of("baton:lua"), "ab");
		Long length = redis.execute(append, List.of("baton:lua"), "cd");

		assertThat(length).isEqualTo(4);
		assertThat(redis.opsForValue().get("baton:lua")).isEqualTo("abcd");
	}

	@Test
	void startsEachTestWithAnEmptyDatabase(StringRedisTemplate redis) {
		assertThat(redis.keys("*")).isEmpty();
	}

}
