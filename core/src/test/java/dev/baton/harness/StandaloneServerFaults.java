package dev.baton.harness;

import java.util.function.LongConsumer;

import dev.baton.test.LocalRedisServer;
import io.lettuce.core.KillArgs;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The server faults of a standalone Redis: client kills and pauses, and {@code kill -9} of Redis,
 * which comes back empty or from its append-only file.
 */
final class StandaloneServerFaults implements ServerFaults {

	private final LocalRedisServer server;

	private final RedisCommands<String, String> admin;

	private final Timeline timeline;

	StandaloneServerFaults(LocalRedisServer server, RedisCommands<String, String> admin, Timeline timeline) {
		this.server = server;
		this.admin = admin;
		this.timeline = timeline;
	}

	@Override
	public void apply(Fault fault, LongConsumer sleepUntil) {
		switch (fault.kind()) {
			case CLIENT_KILL -> {
				long killed = this.admin.clientKill(KillArgs.Builder.typeNormal().skipme())
						+ this.admin.clientKill(KillArgs.Builder.typePubsub().skipme());
				this.timeline.record(Timeline.FAULT, killed + " clients killed");
			}
			// Redis ends the pause itself; the admin connection is not needed meanwhile.
			case CLIENT_PAUSE -> this.admin.clientPause(fault.durationMillis());
			case REDIS_KILL -> {
				this.server.kill();
				sleepUntil.accept(fault.endMillis());
				this.server.restartWithoutData();
				this.timeline.record(Timeline.FAULT, "redis restarted, empty");
			}
			case REDIS_KILL_WITH_AOF -> {
				this.server.kill();
				sleepUntil.accept(fault.endMillis());
				this.server.restart();
				this.timeline.record(Timeline.FAULT, "redis restarted from its append-only file");
			}
			default -> throw new IllegalArgumentException(fault.kind() + " is no fault of a standalone Redis");
		}
	}

}
