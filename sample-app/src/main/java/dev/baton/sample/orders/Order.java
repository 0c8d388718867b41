package dev.baton.sample.orders;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/** An order as the API shows it. */
public record Order(long id, OrderStatus status, Instant createdAt, Instant paymentDueAt, @Nullable Instant paidAt,
		@Nullable Instant cancelledAt) {
}
