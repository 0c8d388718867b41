package dev.baton.lock.annotation;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** A flash sale as an application writes it: read the stock, then sell one, in a transaction. */
public class FlashSale {

	private final JdbcClient jdbc;

	private final LockObserver observer;

	FlashSale(JdbcClient jdbc, LockObserver observer) {
		this.jdbc = jdbc;
		this.observer = observer;
		jdbc.sql("create table if not exists stock (sku varchar(20) primary key, units int)").update();
		jdbc.sql("create table if not exists sales (sku varchar(20), buyer int)").update();
	}

	void stock(String sku, int units) {
		this.jdbc.sql("merge into stock key (sku) values (?, ?)").params(sku, units).update();
	}

	@Transactional
	@DistributedLock(key = "#sku", waitTime = "20s")
	public boolean buy(String sku, int buyer) {
		int units = this.jdbc.sql("select units from stock where sku = ?").param(sku).query(Integer.class).single();
		if (units == 0) {
			return false;
		}
		Thread.yield();
		this.jdbc.sql("update stock set units = ? where sku = ?").params(units - 1, sku).update();
		this.jdbc.sql("insert into sales (sku, buyer) values (?, ?)").params(sku, buyer).update();
		return true;
	}

	@Transactional
	@DistributedLock(name = "sale", key = "#sku")
	public void buyObservingTheLock(String sku) {
		this.observer.record("in method");
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCompletion(int status) {
				FlashSale.this.observer.record("after completion");
			}

		});
	}

	int sold(String sku) {
		return this.jdbc.sql("select count(*) from sales where sku = ?").param(sku).query(Integer.class).single();
	}

	int units(String sku) {
		return this.jdbc.sql("select units from stock where sku = ?").param(sku).query(Integer.class).single();
	}

}
