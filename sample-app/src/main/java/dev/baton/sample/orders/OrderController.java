package dev.baton.sample.orders;

import java.net.URI;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.format.annotation.DurationFormat;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders} places a pending order; {@code POST /orders/{id}/payment} pays it.
 * Unpaid orders are cancelled when their payment timeout runs out.
 */
@RestController
class OrderController {

	private final OrderService orders;

	OrderController(OrderService orders) {
		this.orders = orders;
	}

	@PostMapping("/orders")
	ResponseEntity<Order> place(
			@RequestParam(required = false) @DurationFormat(style = DurationFormat.Style.SIMPLE) @Nullable Duration paymentTimeout) {
		Order order = this.orders.place(paymentTimeout);
		return ResponseEntity.created(URI.create("/orders/" + order.id())).body(order);
	}

	@GetMapping("/orders/{id}")
	ResponseEntity<Order> find(@PathVariable long id) {
		return ResponseEntity.of(this.orders.find(id));
	}

	@PostMapping("/orders/{id}/payment")
	ResponseEntity<Order> pay(@PathVariable long id) {
		return ResponseEntity.of(this.orders.pay(id));
	}

	@ExceptionHandler
	ProblemDetail notPending(OrderNotPendingException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
		problem.setProperty("orderStatus", ex.getOrder().status());
		return problem;
	}

}
