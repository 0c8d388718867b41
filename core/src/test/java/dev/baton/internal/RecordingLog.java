package dev.baton.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.commons.logging.impl.NoOpLog;

/** Keeps what a {@link FreezeDetector} logs, for tests that count or read it. */
final class RecordingLog extends NoOpLog {

	final List<Object> warnings = new CopyOnWriteArrayList<>();

	final List<Object> debugs = new CopyOnWriteArrayList<>();

	@Override
	public void warn(Object message) {
		this.warnings.add(message);
	}

	@Override
	public void debug(Object message) {
		this.debugs.add(message);
	}

	/** How many messages were logged at WARN or DEBUG. */
	int count() {
		return this.warnings.size() + this.debugs.size();
	}

}
