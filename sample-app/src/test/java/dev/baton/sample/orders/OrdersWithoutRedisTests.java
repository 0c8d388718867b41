package dev.baton.sample.orders;

import java.time.Duration;

import javax.sql.DataSource;

import dev.baton.lock.LockLease;
import dev.baton.lock.LockNotAcquiredException;
import dev.baton.lock.annotation.EnableDistributedLocks;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.annotation.EnableDelayedTasks;
import dev.baton.sample.flashsale.FlashSaleService;
import dev.baton.test.lock.InMemoryLockManager;
import dev.baton.test.queue.InMemoryDelayQueues;
import org.junit.jupiter.api.Test;

import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.convert.ConversionService;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * docs/testing.md: the sample's order-timeout handler and flash-sale lock, tested in a plain Spring
 * context on {@link InMemoryDelayQueues} and {@link InMemoryLockManager}, without Redis.
 */
class OrdersWithoutRedisTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(WithoutRedis.class)
		// Reads "30m" as Spring Boot does
		.withBean(ConfigurableApplicationContext.CONVERSION_SERVICE_BEAN_NAME, ConversionService.class,
				ApplicationConversionService::getSharedInstance)
		.withPropertyValues("app.orders.payment-timeout=30m", "app.flash-sale.wait-time=0ms");

	@Test
	void unpaidOrderIsCancelledWhenItsTimeoutFallsDue() {
		contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			InMemoryDelayQueues queues = context.getBean(InMemoryDelayQueues.class);
			Order order = orders.place(null);

			assertThat(queues.advance(Duration.ofMinutes(29))).isZero();
			assertThat(queues.advance(Duration.ofMinutes(1))).isEqualTo(1);

			await().pollInterval(Duration.ofMillis(5))
				.until(() -> orders.find(order.id()).orElseThrow().status() == OrderStatus.CANCELLED);
		});
	}

	@Test
	void aBuyerIsTurnedAwayWhileAnotherInstanceHoldsTheStockLock() {
		contextRunner.run((context) -> {
			FlashSaleService sale = context.getBean(FlashSaleService.class);
			InMemoryLockManager locks = context.getBean(InMemoryLockManager.class);
			sale.restock("tickets", 1);

			LockLease otherInstance = locks.anotherInstance().tryAcquire("FlashSaleService.buy:tickets", Duration.ZERO)
				.orElseThrow();
			assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> sale.buy("tickets"));

			otherInstance.release();
			sale.buy("tickets");
			assertThat(sale.remaining("tickets")).isZero();
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDistributedLocks
	@EnableDelayedTasks
	@Import({ OrderService.class, OrderTimeoutHandler.class, FlashSaleService.class })
	static class WithoutRedis {

		@Bean
		InMemoryLockManager lockManager() {
			return new InMemoryLockManager();
		}

		@Bean
		InMemoryDelayQueues delayQueues() {
			return new InMemoryDelayQueues();
		}

		@Bean
		DelayQueue<Long> orderTimeouts(InMemoryDelayQueues delayQueues) {
			return delayQueues.get("order-timeout", Long.class);
		}

		@Bean
		DataSource dataSource() {
			return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
				.generateUniqueName(true)
				.addScript("schema.sql")
				.build();
		}

		@Bean
		JdbcClient jdbcClient(DataSource dataSource) {
			return JdbcClient.create(dataSource);
		}

	}

}
