package dev.baton.docs.gettingstarted;

import java.time.Duration;

import dev.baton.queue.DelayQueue;
import dev.baton.queue.TaskContext;
import dev.baton.queue.annotation.DelayedTask;
import org.springframework.stereotype.Service;

/** docs/getting-started.md, step 4, as the page shows it. */
@Service
public class Reminders {

	private final DelayQueue<Reminder> queue;

	public Reminders(DelayQueue<Reminder> queue) {
		this.queue = queue;
	}

	public String remindLater(Reminder reminder) {
		return queue.schedule(reminder, Duration.ofMinutes(30));
	}

	@DelayedTask(queue = "reminders", maxAttempts = "3")
	void send(Reminder reminder, TaskContext task) {
		// runs once, 30 minutes later, on whichever instance is free;
		// task.id() and task.attempt() help make it idempotent
	}
}
