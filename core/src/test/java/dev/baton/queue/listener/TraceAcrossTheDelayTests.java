package dev.baton.queue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.Delivery;
import dev.baton.queue.annotation.DelayedTask;
import dev.baton.queue.spi.AdvanceableQueue;
import dev.baton.queue.redis.RedisDelayQueues;
import dev.baton.test.RedisTest;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The trace of a request that schedules a task continues in the task's handling, whenever and
 * on whichever instance it runs: the scheduling stores the trace context with the task, and the
 * handling runs in a child span of the scheduling's span. The two instances here have tracers of
 * their own, as two JVMs would, and share only Redis.
 */
@RedisTest
class TraceAcrossTheDelayTests {

	private final SimpleTracer checkoutTracer = new SimpleTracer();

	private final SimpleTracer workerTracer = new SimpleTracer();

	private final SpanRecorder handler = new SpanRecorder(this.workerTracer);

	private final List<AutoCloseable> instances = new CopyOnWriteArrayList<>();

	@AfterEach
	void closeInstances() throws Exception {
		for (AutoCloseable instance : this.instances) {
			instance.close();
		}
	}

	@Test
	void handlingThirtyMinutesLaterOnAnotherInstanceRunsInAChildSpanOfTheScheduling(
			RedisConnectionFactory connectionFactory) {
		ObservationRegistry checkout = tracing(this.checkoutTracer);
		DelayQueue<Parcel> orders = queues(connectionFactory, checkout).get("orders", Parcel.class);
		startWorker(connectionFactory);

		Observation.createNotStarted("checkout", checkout)
			.observe(() -> orders.schedule("o-1", new Parcel("o-1", 1), Duration.ofMinutes(30)));
		((AdvanceableQueue) orders).advance(Duration.ofMinutes(30));

		await().atMost(Duration.ofSeconds(10)).until(() -> this.handler.spans.size() == 1);
		SimpleSpan request = span(this.checkoutTracer, "checkout");
		SimpleSpan scheduling = span(this.checkoutTracer, "schedule orders");
		SimpleSpan handling = span(this.workerTracer, "handle orders");
		assertThat(scheduling.getParentId()).isEqualTo(request.getSpanId());
		assertThat(handling.getTraceId()).isEqualTo(request.getTraceId());
		assertThat(handling.getParentId()).isEqualTo(scheduling.getSpanId());
		assertThat(handling.getKind()).isEqualTo(Span.Kind.CONSUMER);
		assertThat(handling.getTags()).containsEntry("queue", "orders")
			.containsEntry("outcome", "success")
			.containsEntry("baton.task.id", "o-1")
			.containsEntry("baton.task.attempt", "1");
		// The handler's own work (and its log lines) belong to the handling span
		assertThat(this.handler.spans.get(0).getSpanId()).isEqualTo(handling.getSpanId());
	}

	@Test
	void taskScheduledOutsideATraceStartsANewOneAndStoresNoContext(RedisConnectionFactory connectionFactory) {
		DelayQueue<Parcel> orders = queues(connectionFactory, ObservationRegistry.NOOP).get("orders", Parcel.class);
		orders.schedule("o-2", new Parcel("o-2", 1), Duration.ofMinutes(5));
		assertThat(((AdvanceableQueue) orders).advance(Duration.ofMinutes(5))).isEqualTo(1);
		startWorker(connectionFactory);

		await().atMost(Duration.ofSeconds(10)).until(() -> this.handler.spans.size() == 1);
		SimpleSpan handling = span(this.workerTracer, "handle orders");
		assertThat(handling.getParentId()).isNullOrEmpty();
	}

	@Test
	void deliveriesCarryTheStoredTraceContextToManualConsumers(RedisConnectionFactory connectionFactory) {
		ObservationRegistry checkout = tracing(this.checkoutTracer);
		DelayQueue<Parcel> traced = queues(connectionFactory, checkout).get("orders", Parcel.class);
		DelayQueue<Parcel> untraced = queues(connectionFactory, ObservationRegistry.NOOP).get("orders", Parcel.class);
		Observation.createNotStarted("checkout", checkout)
			.observe(() -> traced.schedule("traced", new Parcel("traced", 1), Duration.ZERO));
		untraced.schedule("untraced", new Parcel("untraced", 2), Duration.ZERO);

		List<Delivery<Parcel>> deliveries = untraced.poll(2);

		SimpleSpan scheduling = span(this.checkoutTracer, "schedule orders");
		assertThat(deliveries).extracting(Delivery::id).containsExactly("traced", "untraced");
		assertThat(deliveries.get(0).traceContext()).containsOnly(Map.entry("traceparent",
				"00-" + scheduling.getTraceId() + "-" + scheduling.getSpanId() + "-01"));
		assertThat(deliveries.get(1).traceContext()).isEmpty();
		deliveries.forEach(Delivery::ack);
	}

	@Test
	void traceContextSurvivesARetryAndIsDeletedWithTheTask(RedisConnectionFactory connectionFactory) {
		ObservationRegistry checkout = tracing(this.checkoutTracer);
		DelayQueue<Parcel> orders = queues(connectionFactory, checkout).get("orders", Parcel.class);
		this.handler.failFirst = true;
		startWorker(connectionFactory);

		orders.schedule("o-3", new Parcel("o-3", 1), Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> this.handler.spans.size() == 2);
		SimpleSpan scheduling = span(this.checkoutTracer, "schedule orders");
		assertThat(this.workerTracer.getSpans()).extracting(SimpleSpan::getParentId)
			.containsOnly(scheduling.getSpanId());
		await().atMost(Duration.ofSeconds(5)).until(() -> orders.find("o-3").isEmpty());
	}

	private RedisDelayQueues queues(RedisConnectionFactory connectionFactory, ObservationRegistry observations) {
		RedisDelayQueues queues = RedisDelayQueues.builder(connectionFactory, JsonMapper.builder().build())
			.observationRegistry(observations)
			.build();
		this.instances.add(queues);
		return queues;
	}

	private void startWorker(RedisConnectionFactory connectionFactory) {
		ListenerSettings settings = new ListenerSettings(3,
				new BackoffPolicy(Duration.ofMillis(50), 2.0, Duration.ofMillis(200)), Duration.ofSeconds(5), 4, 0,
				Duration.ofMillis(200), Duration.ofSeconds(2));
		this.instances.add(new ListenerContext(connectionFactory, tracing(this.workerTracer), (queue) -> settings,
				this.handler)
			.start());
	}

	private static ObservationRegistry tracing(SimpleTracer tracer) {
		TraceparentPropagator propagator = new TraceparentPropagator(tracer);
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig()
			.observationHandler(new FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
					new DefaultTracingObservationHandler(tracer)));
		return registry;
	}

	private static SimpleSpan span(SimpleTracer tracer, String name) {
		return tracer.getSpans().stream().filter((span) -> name.equals(span.getName())).reduce((a, b) -> b).orElseThrow(
				() -> new AssertionError("No span '" + name + "' among " + tracer.getSpans()));
	}

	/** Records the span its handler runs in and the trace context its task carried. */
	static class SpanRecorder {

		final List<SimpleSpan> spans = new CopyOnWriteArrayList<>();

		private final SimpleTracer tracer;

		volatile boolean failFirst;

		SpanRecorder(SimpleTracer tracer) {
			this.tracer = tracer;
		}

		@DelayedTask(queue = "orders")
		void handle(Parcel parcel) {
			this.spans.add(this.tracer.currentSpan());
			if (this.failFirst && this.spans.size() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
		}

	}

}
