package dev.baton.autoconfigure.redis;

import java.util.Optional;

import dev.baton.internal.PrimarySwitchWatch;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * The application's {@link PrimarySwitchWatch}, if its Redis is found through Sentinel: started
 * with the context and closed with it, before the connection factory.
 */
public final class PrimarySwitches implements SmartLifecycle {

	private final @Nullable PrimarySwitchWatch watch;

	private volatile boolean running;

	PrimarySwitches(@Nullable PrimarySwitchWatch watch) {
		this.watch = watch;
	}

	/**
	 * The watch.
	 * @return the watch, or empty when the connection factory does not use Sentinel
	 */
	public Optional<PrimarySwitchWatch> watch() {
		return Optional.ofNullable(this.watch);
	}

	@Override
	public void start() {
		if (this.watch != null) {
			this.watch.start();
		}
		this.running = true;
	}

	@Override
	public void stop() {
		if (this.watch != null) {
			this.watch.close();
		}
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
