package dev.baton.sample.flashsale;

import java.time.Instant;

import dev.baton.lock.annotation.DistributedLock;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Sells limited stock. The stock check and the decrement are two statements, so without the
 * lock two buyers can both see the last unit; {@code @DistributedLock} makes them take turns
 * across every instance, around the transaction.
 */
@Service
public class FlashSaleService {

	private final JdbcClient jdbc;

	FlashSaleService(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Sets the stock of {@code sku}, for the demo and for tests. */
	@Transactional
	public void restock(String sku, int units) {
		this.jdbc.sql("merge into flash_sale_stock (sku, remaining) key (sku) values (?, ?)")
			.params(sku, units)
			.update();
		this.jdbc.sql("delete from flash_sale_order where sku = ?").param(sku).update();
	}

	/** Units left, read without the lock: good enough to turn buyers away once sold out. */
	public int remaining(String sku) {
		return this.jdbc.sql("select remaining from flash_sale_stock where sku = ?")
			.param(sku)
			.query(Integer.class)
			.optional()
			.orElse(0);
	}

	/** Units sold so far. */
	public long sold(String sku) {
		return this.jdbc.sql("select count(*) from flash_sale_order where sku = ?").param(sku).query(Long.class).single();
	}

	/**
	 * Buys one unit.
	 * @return the order id
	 * @throws SoldOutException when no unit is left
	 */
	@DistributedLock(key = "#sku", waitTime = "${app.flash-sale.wait-time}")
	@Transactional
	public long buy(String sku) {
		if (remaining(sku) <= 0) {
			throw new SoldOutException(sku);
		}
		this.jdbc.sql("update flash_sale_stock set remaining = remaining - 1 where sku = ?").param(sku).update();
		GeneratedKeyHolder keyHolder = new GeneratedKeyHolder();
		this.jdbc.sql("insert into flash_sale_order (sku, created_at) values (?, ?)")
			.params(sku, Instant.now())
			.update(keyHolder);
		return keyHolder.getKeyAs(Long.class);
	}

}
