package dev.baton.autoconfigure.queue;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a start-up that failed on a {@code baton.queue.*} property out of range, naming the property. */
final class InvalidQueueSettingFailureAnalyzer extends AbstractFailureAnalyzer<InvalidQueueSettingException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidQueueSettingException cause) {
		return new FailureAnalysis(cause.getMessage(), "Change '" + cause.getProperty()
				+ "' in the application's configuration (properties or YAML files, environment variables). The "
				+ "delayed-tasks guide lists every baton.queue property with its range.", cause);
	}

}
