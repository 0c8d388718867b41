package dev.baton.test.contract;

import java.util.function.Supplier;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The Redis deployment a contract suite runs against, started before its tests and stopped after
 * them: registered on an instance field of a suite whose instance lives for the whole class.
 */
final class RedisDeployment implements BeforeAllCallback, AfterAllCallback {

	private final Supplier<RedisBackend> start;

	private RedisBackend backend;

	/** @param start starts the deployment, e.g. {@link RedisBackend#cluster()} */
	RedisDeployment(Supplier<RedisBackend> start) {
		this.start = start;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.backend = this.start.get();
	}

	@Override
	public void afterAll(ExtensionContext context) throws Exception {
		this.backend.close();
	}

	RedisBackend backend() {
		return this.backend;
	}

}
