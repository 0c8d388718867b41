package dev.baton.test;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** The test server wins over every way an application names its Redis server. */
class RedisTestConnectionDetailsTests {

	@Nested
	@SpringBootTest(classes = Application.class, properties = "spring.data.redis.url=redis://localhost:1")
	@RedisTest
	class WithUrl {

		@Autowired
		StringRedisTemplate redis;

		@Test
		void applicationWritesToTheTestServer() {
			assertWritesReachTheTestServer(this.redis);
		}

	}

	@Nested
	@SpringBootTest(classes = Application.class,
			properties = { "spring.data.redis.cluster.nodes=localhost:1,localhost:2" })
	@RedisTest
	class WithCluster {

		@Autowired
		StringRedisTemplate redis;

		@Autowired
		RedisConnectionFactory connectionFactory;

		@Test
		void applicationWritesToTheStandaloneTestServer() {
			assertThat(((LettuceConnectionFactory) this.connectionFactory).getClusterConfiguration()).isNull();
			assertWritesReachTheTestServer(this.redis);
		}

	}

	@Nested
	@SpringBootTest(classes = Application.class,
			properties = { "spring.data.redis.sentinel.master=mymaster", "spring.data.redis.sentinel.nodes=localhost:1" })
	@RedisTest
	class WithSentinel {

		@Autowired
		StringRedisTemplate redis;

		@Test
		void applicationWritesToTheTestServer() {
			assertWritesReachTheTestServer(this.redis);
		}

	}

	static void assertWritesReachTheTestServer(StringRedisTemplate application) {
		application.opsForValue().set("written-by-the-application", "yes");
		RedisServer server = RedisServers.shared();
		LettuceConnectionFactory direct = new LettuceConnectionFactory(server.host(), server.port());
		direct.afterPropertiesSet();
		direct.start();
		try {
			assertThat(new StringRedisTemplate(direct).opsForValue().get("written-by-the-application")).isEqualTo("yes");
		}
		finally {
			direct.destroy();
		}
	}

	@SpringBootConfiguration
	@ImportAutoConfiguration(DataRedisAutoConfiguration.class)
	static class Application {

	}

}
