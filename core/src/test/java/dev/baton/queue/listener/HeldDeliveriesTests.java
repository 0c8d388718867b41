package dev.baton.queue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.baton.queue.Delivery;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Permits lent while acknowledgements wait for a failing partition: each goes back once, takes no
 * room from claims meanwhile, and no more are lent than the container has permits.
 */
class HeldDeliveriesTests {

	private final Permits permits = new Permits(2, () -> {
	});

	private final HeldDeliveries held = new HeldDeliveries("orders", HandlerMetrics.NONE, this.permits);

	@Test
	void aPermitIsLentOnceAndNeverFreedAgainAndNoMoreThanTheCapacityIsLent() {
		Delivery<Object> a = delivery("a");
		Delivery<Object> b = delivery("b");
		Delivery<Object> c = delivery("c");
		Delivery<Object> d = delivery("d");
		claim(a, b);

		this.held.lendPermit(a);
		this.held.lendPermit(a);
		this.held.lendPermit(b);
		assertThat(this.held.takingRoom()).isZero();
		claim(c, d);
		this.held.lendPermit(c);
		assertThat(this.held.takingRoom()).as("c not lent: two are, as many as the permits").isEqualTo(2);
		assertThat(free()).isZero();

		this.held.finish(a);
		assertThat(free()).as("a's permit was lent already").isZero();
		this.held.lendPermit(c);
		assertThat(free()).isOne();
		List.of(b, c, d).forEach(this.held::finish);
		assertThat(free()).as("every permit back, none twice").isEqualTo(2);
		assertThat(this.held.takingRoom()).isZero();
	}

	private void claim(Delivery<Object> first, Delivery<Object> second) {
		assertThat(this.permits.drain(2)).isEqualTo(2);
		this.held.hold(List.of(first, second), System.nanoTime() + Duration.ofMinutes(1).toNanos());
	}

	/** The free permits, given back after counting. */
	private int free() {
		int free = this.permits.drain(10);
		this.permits.release(free);
		return free;
	}

	private static Delivery<Object> delivery(String id) {
		return new Delivery<>() {

			@Override
			public String id() {
				return id;
			}

			@Override
			public Object payload() {
				return "x";
			}

			@Override
			public int attempt() {
				return 1;
			}

			@Override
			public Instant dueAt() {
				return Instant.EPOCH;
			}

			@Override
			public Instant scheduledAt() {
				return Instant.EPOCH;
			}

			@Override
			public boolean ack() {
				return true;
			}

			@Override
			public boolean retry(Duration delay) {
				return true;
			}

			@Override
			public boolean deadLetter(String reason) {
				return true;
			}

			@Override
			public boolean extendVisibility(Duration visibilityTimeout) {
				return true;
			}

		};
	}

}
