package dev.baton.sample.orders;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import dev.baton.queue.DelayQueue;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places and pays orders. Placing an order schedules an {@code order-timeout} task for it;
 * paying cancels that task. Both state changes are conditional updates on {@code PENDING}, so a
 * payment racing the timeout has exactly one winner.
 */
@Service
public class OrderService {

	private final JdbcClient jdbc;

	private final DelayQueue<Long> timeouts;

	private final Duration paymentTimeout;

	OrderService(JdbcClient jdbc, DelayQueue<Long> timeouts,
			@Value("${app.orders.payment-timeout}") Duration paymentTimeout) {
		this.jdbc = jdbc;
		this.timeouts = timeouts;
		this.paymentTimeout = paymentTimeout;
	}

	/**
	 * Places a pending order that is cancelled unless paid within the payment timeout.
	 * @param paymentTimeout a shorter or longer timeout for this order, or {@code null} for the configured one
	 */
	public Order place(@Nullable Duration paymentTimeout) {
		Duration timeout = (paymentTimeout != null) ? paymentTimeout : this.paymentTimeout;
		Instant now = Instant.now();
		GeneratedKeyHolder keyHolder = new GeneratedKeyHolder();
		this.jdbc.sql("insert into orders (status, created_at, payment_due_at) values ('PENDING', ?, ?)")
			.params(Timestamp.from(now), Timestamp.from(now.plus(timeout)))
			.update(keyHolder);
		long id = keyHolder.getKeyAs(Long.class);
		// Scheduled after the insert commits, so the task never sees an order that is not there
		// yet. The order id is the task id: scheduling twice for one order is a no-op.
		this.timeouts.schedule(String.valueOf(id), id, timeout);
		return find(id).orElseThrow();
	}

	/**
	 * Marks a pending order paid and cancels its timeout.
	 * @return the order, or empty if there is no such order
	 * @throws OrderNotPendingException if it was already paid or cancelled
	 */
	@Transactional
	public Optional<Order> pay(long id) {
		int updated = this.jdbc.sql("update orders set status = 'PAID', paid_at = ? where id = ? and status = 'PENDING'")
			.params(Timestamp.from(Instant.now()), id)
			.update();
		Optional<Order> order = find(id);
		if (updated == 0 && order.isPresent()) {
			throw new OrderNotPendingException(order.get());
		}
		order.ifPresent((paid) -> this.timeouts.cancel(String.valueOf(id)));
		return order;
	}

	/**
	 * Cancels an order if it is still pending; does nothing otherwise, so a redelivered task
	 * changes nothing.
	 * @return whether this call cancelled it
	 */
	@Transactional
	public boolean cancelIfUnpaid(long id) {
		return this.jdbc.sql("update orders set status = 'CANCELLED', cancelled_at = ? where id = ? and status = 'PENDING'")
			.params(Timestamp.from(Instant.now()), id)
			.update() == 1;
	}

	public Optional<Order> find(long id) {
		return this.jdbc.sql("select * from orders where id = ?")
			.param(id)
			.query((rs, row) -> new Order(rs.getLong("id"), OrderStatus.valueOf(rs.getString("status")),
					rs.getTimestamp("created_at").toInstant(), rs.getTimestamp("payment_due_at").toInstant(),
					instant(rs.getTimestamp("paid_at")), instant(rs.getTimestamp("cancelled_at"))))
			.optional();
	}

	private static @Nullable Instant instant(@Nullable Timestamp timestamp) {
		return (timestamp != null) ? timestamp.toInstant() : null;
	}

}
