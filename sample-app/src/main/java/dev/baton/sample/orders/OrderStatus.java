package dev.baton.sample.orders;

/** Where an order is in its life. */
public enum OrderStatus {

	/** Placed, waiting for payment. */
	PENDING,

	/** Paid in time. */
	PAID,

	/** Not paid in time, cancelled by the {@code order-timeout} task. */
	CANCELLED

}
