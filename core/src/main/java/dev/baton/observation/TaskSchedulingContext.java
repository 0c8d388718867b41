package dev.baton.observation;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.observation.transport.SenderContext;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of scheduling knows. Its carrier collects the trace context (propagation
 * fields such as {@code traceparent}) that tracing injects; Baton stores it with the tasks, so
 * that their handling continues the trace.
 */
public class TaskSchedulingContext extends SenderContext<Map<String, String>> {

	private final String queue;

	private final List<String> taskIds;

	/**
	 * Create a context.
	 * @param queue the queue name
	 * @param taskIds the ids of the tasks to schedule
	 */
	public TaskSchedulingContext(String queue, List<String> taskIds) {
		super((carrier, key, value) -> {
			if (carrier != null) {
				carrier.put(key, value);
			}
		});
		this.queue = queue;
		this.taskIds = List.copyOf(taskIds);
		setCarrier(new LinkedHashMap<>());
		setRemoteServiceName("redis");
	}

	/** The queue name. */
	public String getQueue() {
		return this.queue;
	}

	/** The ids of the tasks to schedule: one for {@code schedule}, all for {@code scheduleAll}. */
	public List<String> getTaskIds() {
		return this.taskIds;
	}

	/** The id of the task, or {@code null} when several are scheduled at once. */
	public @Nullable String getTaskId() {
		return (this.taskIds.size() == 1) ? this.taskIds.get(0) : null;
	}

	/** The trace context that tracing injected, empty without tracing. */
	public Map<String, String> getTraceContext() {
		Map<String, String> carrier = getCarrier();
		return (carrier != null) ? carrier : Map.of();
	}

}
