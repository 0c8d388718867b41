package dev.baton.queue.listener;

import java.util.List;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.jspecify.annotations.Nullable;

/** W3C {@code traceparent} propagation for Micrometer Tracing's {@link SimpleTracer}, which has none. */
final class TraceparentPropagator implements Propagator {

	private final SimpleTracer tracer;

	TraceparentPropagator(SimpleTracer tracer) {
		this.tracer = tracer;
	}

	@Override
	public List<String> fields() {
		return List.of("traceparent");
	}

	@Override
	public <C> void inject(TraceContext context, @Nullable C carrier, Setter<C> setter) {
		setter.set(carrier, "traceparent", "00-" + context.traceId() + "-" + context.spanId() + "-01");
	}

	@Override
	public <C> Span.Builder extract(C carrier, Getter<C> getter) {
		String traceparent = getter.get(carrier, "traceparent");
		if (traceparent == null) {
			return this.tracer.spanBuilder();
		}
		String[] parts = traceparent.split("-");
		TraceContext parent = this.tracer.traceContextBuilder().traceId(parts[1]).spanId(parts[2]).sampled(true).build();
		return this.tracer.spanBuilder().setParent(parent);
	}

}
