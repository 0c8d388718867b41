package dev.baton.sample.flashsale;

import java.net.URI;
import java.util.Map;

import dev.baton.lock.LockNotAcquiredException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /flash-sales/{sku}/orders}: 201 bought, 409 sold out, 429 busy. */
@RestController
class FlashSaleController {

	private final FlashSaleService sales;

	FlashSaleController(FlashSaleService sales) {
		this.sales = sales;
	}

	@PutMapping("/flash-sales/{sku}")
	Map<String, Object> restock(@PathVariable String sku, @RequestParam int stock) {
		this.sales.restock(sku, stock);
		return status(sku);
	}

	@GetMapping("/flash-sales/{sku}")
	Map<String, Object> status(@PathVariable String sku) {
		return Map.of("sku", sku, "remaining", this.sales.remaining(sku), "sold", this.sales.sold(sku));
	}

	@PostMapping("/flash-sales/{sku}/orders")
	ResponseEntity<Map<String, Object>> buy(@PathVariable String sku) {
		if (this.sales.remaining(sku) <= 0) {
			throw new SoldOutException(sku);
		}
		long orderId = this.sales.buy(sku);
		return ResponseEntity.created(URI.create("/flash-sales/" + sku + "/orders/" + orderId))
			.body(Map.of("sku", sku, "orderId", orderId));
	}

	@ExceptionHandler
	ProblemDetail soldOut(SoldOutException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail busy(LockNotAcquiredException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS,
				"Too many buyers right now, try again");
		problem.setProperty("lock", ex.getLockName());
		return problem;
	}

}
