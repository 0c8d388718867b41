package dev.baton.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class a real Redis server.
 *
 * <p>The server is the JVM-wide {@linkplain RedisServers#shared() shared server}. Test methods
 * and constructors can declare parameters of type {@link RedisServer},
 * {@link org.springframework.data.redis.connection.RedisConnectionFactory RedisConnectionFactory}
 * or {@link org.springframework.data.redis.core.StringRedisTemplate StringRedisTemplate}.
 * In a Spring test ({@code @SpringBootTest} or {@code @SpringJUnitConfig}),
 * {@code spring.data.redis.host} and {@code spring.data.redis.port} point at the server.
 *
 * <pre class="code">
 * &#064;RedisTest
 * class OrderTimeoutTests {
 *
 *     &#064;Test
 *     void cancelsUnpaidOrder(StringRedisTemplate redis) { ... }
 * }
 * </pre>
 *
 * @see RedisServerExtension
 */
@Target({ ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisServerExtension.class)
public @interface RedisTest {

	/**
	 * Whether to empty the database before each test, so that tests do not see each other's
	 * keys. The default is {@code true}.
	 */
	boolean flushBeforeEach() default true;

}
