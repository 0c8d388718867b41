package dev.baton.sample.demo;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Runs the sample's scenarios against the running application over HTTP and reports what it
 * measured: every number in the report is counted or timed, not canned.
 */
@Component
public class DemoScenarios {

	static final int BUYERS = 2_000;

	static final int BUYERS_IN_FLIGHT = 200;

	static final int STOCK = 10;

	static final int ORDERS = 100;

	static final int PAID_ORDERS = 60;

	static final Duration DEMO_PAYMENT_TIMEOUT = Duration.ofSeconds(5);

	private final JdbcClient jdbc;

	DemoScenarios(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Runs every scenario against the application listening on {@code port}.
	 * @return the report, one line per scenario
	 */
	public String run(int port) {
		DemoClient client = new DemoClient(port);
		List<String> lines = new ArrayList<>();
		lines.add(flashSale(client));
		lines.add(documents(client));
		lines.add(orders(client));
		lines.add(reportJob());
		return String.join(System.lineSeparator(), lines);
	}

	private String flashSale(DemoClient client) {
		String sku = "demo-phone-" + System.currentTimeMillis();
		client.send("PUT", "/flash-sales/" + sku + "?stock=" + STOCK, "");
		long start = System.nanoTime();
		Map<Integer, Long> byStatus = client.sendConcurrently(BUYERS, BUYERS_IN_FLIGHT, "POST",
				"/flash-sales/" + sku + "/orders")
			.stream()
			.collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		long sold = this.jdbc.sql("select count(*) from flash_sale_order where sku = ?").param(sku).query(Long.class).single();
		long soldOut = byStatus.getOrDefault(409, 0L);
		long busy = byStatus.getOrDefault(429, 0L);
		return String.format("flash sale: %,d buyers (%d at a time), %d in stock, %d sold, %d oversold, "
				+ "%,d refused (%,d sold out, %,d busy) in %.1f s", BUYERS, BUYERS_IN_FLIGHT, STOCK, sold,
				Math.max(0, sold - STOCK), soldOut + busy, soldOut, busy, took.toMillis() / 1000.0);
	}

	private String documents(DemoClient client) {
		String path = "/documents/demo-" + System.currentTimeMillis();
		CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> client.send("PUT", path, "first click"));
		CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> client.send("PUT", path, "second click"));
		List<Integer> statuses = List.of(first.join(), second.join());
		return String.format("documents: 2 simultaneous edits of one document, %d saved, %d refused with 409",
				statuses.stream().filter((status) -> status == 200).count(),
				statuses.stream().filter((status) -> status == 409).count());
	}

	private String orders(DemoClient client) {
		List<Long> ids = new ArrayList<>();
		for (int i = 0; i < ORDERS; i++) {
			String location = client.exchange("POST", "/orders?paymentTimeout=" + DEMO_PAYMENT_TIMEOUT.toMillis() + "ms")
				.headers()
				.firstValue("Location")
				.orElseThrow();
			ids.add(Long.parseLong(location.substring(location.lastIndexOf('/') + 1)));
		}
		ids.subList(0, PAID_ORDERS).forEach((id) -> client.send("POST", "/orders/" + id + "/payment", ""));
		long first = ids.get(0);
		long last = ids.get(ids.size() - 1);
		Instant deadline = Instant.now().plus(DEMO_PAYMENT_TIMEOUT).plusSeconds(10);
		while (pending(first, last) > 0 && Instant.now().isBefore(deadline)) {
			sleep(Duration.ofMillis(100));
		}
		Map<String, Object> cancelled = this.jdbc.sql("""
				select count(*) as n,
				       min(datediff('MILLISECOND', created_at, cancelled_at)) as fastest,
				       max(datediff('MILLISECOND', created_at, cancelled_at)) as slowest
				from orders where id between ? and ? and status = 'CANCELLED'""")
			.params(first, last)
			.query()
			.singleRow();
		return String.format("orders: %d placed, %d paid, %s auto-cancelled %.3f-%.3f s after placement "
				+ "(payment timeout %d s), %d still pending", ORDERS, PAID_ORDERS, cancelled.get("N"),
				seconds(cancelled.get("FASTEST")), seconds(cancelled.get("SLOWEST")),
				DEMO_PAYMENT_TIMEOUT.toSeconds(), pending(first, last));
	}

	private String reportJob() {
		List<String> runs = this.jdbc.sql("select instance || ': ' || count(*) from report_runs group by instance")
			.query(String.class)
			.list();
		return "report job runs by instance: " + (runs.isEmpty() ? "none yet (first run after app.report.interval)" : String.join(", ", runs));
	}

	private long pending(long first, long last) {
		return this.jdbc.sql("select count(*) from orders where id between ? and ? and status = 'PENDING'")
			.params(first, last)
			.query(Long.class)
			.single();
	}

	private static double seconds(Object millis) {
		return (millis != null) ? ((Number) millis).doubleValue() / 1000 : Double.NaN;
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Demo interrupted", ex);
		}
	}

}
