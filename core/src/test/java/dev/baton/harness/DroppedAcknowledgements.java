package dev.baton.harness;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/**
 * Baton's report, by task id, of an acknowledgement it dropped because the delivery's visibility
 * could not be extended in time ({@code Acknowledger}'s warning "Dropping the acknowledgement of
 * task '...'"): the task may be delivered again, and this is the only trace Baton leaves of it, since
 * no meter counts it ({@code baton.queue.stale} counts only what Redis answered was stale). Each
 * report goes to the ledger while the appender is attached. If the warning's wording changes,
 * nothing is recorded and the duplicates it explained fail the run: update the pattern.
 */
final class DroppedAcknowledgements extends AppenderBase<ILoggingEvent> implements AutoCloseable {

	static final String LOGGER = "dev.baton.queue.listener.Acknowledger";

	private static final Pattern DROPPED = Pattern
		.compile("Dropping the acknowledgement of task '(.*)' of queue '" + Pattern.quote(HarnessInstance.QUEUE) + "'");

	private final TaskLedger ledger;

	private final Timeline timeline;

	private DroppedAcknowledgements(TaskLedger ledger, Timeline timeline) {
		this.ledger = ledger;
		this.timeline = timeline;
	}

	/** Starts recording Baton's dropped acknowledgements into the ledger, until closed. */
	static DroppedAcknowledgements record(TaskLedger ledger, Timeline timeline) {
		DroppedAcknowledgements appender = new DroppedAcknowledgements(ledger, timeline);
		appender.setName("harness-dropped-acknowledgements");
		appender.start();
		((Logger) LoggerFactory.getLogger(LOGGER)).addAppender(appender);
		return appender;
	}

	@Override
	protected void append(ILoggingEvent event) {
		Matcher matcher = DROPPED.matcher(event.getFormattedMessage());
		if (matcher.lookingAt()) {
			String id = matcher.group(1);
			long at = this.timeline.now();
			this.ledger.droppedAcks.add(new TaskLedger.DroppedAck(id, at));
			this.timeline.record(id, "Baton dropped the acknowledgement of a delivery whose visibility it could not"
					+ " extend [" + event.getThreadName() + "]");
		}
	}

	@Override
	public void close() {
		((Logger) LoggerFactory.getLogger(LOGGER)).detachAppender(this);
		stop();
	}

}
