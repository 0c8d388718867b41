package dev.baton.sample.orders;

/** The order was already paid or cancelled. */
public class OrderNotPendingException extends RuntimeException {

	private final Order order;

	public OrderNotPendingException(Order order) {
		super("Order " + order.id() + " is " + order.status());
		this.order = order;
	}

	public Order getOrder() {
		return this.order;
	}

}
