package dev.baton.lock.annotation;

import java.time.Duration;

import javax.sql.DataSource;

import dev.baton.lock.LockManager;
import dev.baton.lock.redis.RedisLockManager;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * What an application without Spring Boot declares to use {@code @DistributedLock}: a lock
 * manager, the advisor and an auto-proxy creator; plus an H2 database with transactions.
 */
@Configuration(proxyBeanMethods = false)
@EnableTransactionManagement
class LockingTestConfiguration {

	@Bean
	static DefaultAdvisorAutoProxyCreator autoProxyCreator() {
		DefaultAdvisorAutoProxyCreator creator = new DefaultAdvisorAutoProxyCreator();
		creator.setProxyTargetClass(true);
		return creator;
	}

	@Bean
	static DistributedLockAdvisor distributedLockAdvisor(ObjectProvider<LockManager> lockManager) {
		return new DistributedLockAdvisor(lockManager::getObject, Duration.ZERO);
	}

	@Bean
	MeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

	@Bean
	RedisLockManager lockManager(RedisConnectionFactory connectionFactory, MeterRegistry meterRegistry) {
		return RedisLockManager.builder(connectionFactory).meterRegistry(meterRegistry).build();
	}

	@Bean
	DataSource dataSource() {
		return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true).build();
	}

	@Bean
	LockObserver lockObserver(RedisConnectionFactory connectionFactory) {
		return new LockObserver(new StringRedisTemplate(connectionFactory));
	}

	@Bean
	PlatformTransactionManager transactionManager(DataSource dataSource, LockObserver observer) {
		return new DataSourceTransactionManager(dataSource) {

			@Override
			protected void doBegin(Object transaction, TransactionDefinition definition) {
				observer.record("transaction begins");
				super.doBegin(transaction, definition);
			}

		};
	}

	@Bean
	FlashSale flashSale(JdbcClient jdbc, LockObserver observer) {
		return new FlashSale(jdbc, observer);
	}

	@Bean
	JdbcClient jdbcClient(DataSource dataSource) {
		return JdbcClient.create(dataSource);
	}

}
