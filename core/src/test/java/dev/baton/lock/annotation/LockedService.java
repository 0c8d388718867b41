package dev.baton.lock.annotation;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Mono;

/** Locked methods of every kind the interceptor handles. */
public class LockedService {

	// Tests reach the state through methods: the proxy has fields of its own.
	private final AtomicInteger calls = new AtomicInteger();

	private final CompletableFuture<String> pending = new CompletableFuture<>();

	private volatile Runnable inside = () -> {
	};

	public int calls() {
		return this.calls.get();
	}

	public CompletableFuture<String> pending() {
		return this.pending;
	}

	public void onInside(Runnable inside) {
		this.inside = inside;
	}

	@DistributedLock(key = "#orderId")
	public String pay(long orderId) {
		this.calls.incrementAndGet();
		this.inside.run();
		return "paid " + orderId;
	}

	@DistributedLock(name = "report", onFailure = OnLockFailure.SKIP)
	public void report() {
		this.calls.incrementAndGet();
	}

	@DistributedLock(name = "report", onFailure = OnLockFailure.SKIP)
	public Optional<String> reportOptional() {
		return Optional.of("ran");
	}

	@DistributedLock(name = "report", onFailure = OnLockFailure.SKIP)
	public List<String> reportList() {
		return List.of("ran");
	}

	@DistributedLock(name = "report", fallbackMethod = "busy")
	public String reportOrFallback(String who) {
		return "ran for " + who;
	}

	String busy(String who) {
		return "busy, sorry " + who;
	}

	@DistributedLock(name = "stock", key = "#skus")
	public void reserve(Set<String> skus) {
		this.calls.incrementAndGet();
		this.inside.run();
	}

	@DistributedLock(name = "stock", key = "#order.skus()")
	public void reserveOrder(Order order) {
		this.inside.run();
	}

	@DistributedLock(name = "nightly", lockAtLeastFor = "${test.lock-at-least-for:5s}", onFailure = OnLockFailure.SKIP)
	public void nightly() {
		this.calls.incrementAndGet();
	}

	@DistributedLock(name = "async")
	public CompletableFuture<String> async() {
		return this.pending;
	}

	@DistributedLock(name = "reactive", waitTime = "5s")
	public Mono<String> reactive(Mono<String> work) {
		return work;
	}

	@DistributedLock(key = "#p0.id()", leaseTime = "100ms")
	public void shortLease(Order order) {
		this.inside.run();
	}

	/** An order with the SKUs it reserves. */
	public record Order(String id, List<String> skus) {
	}

}
