package dev.baton.queue.redis;

import java.util.List;

import dev.baton.internal.TimedScripts;

/**
 * One script call on one partition.
 * @param keys the partition's keys the script takes
 * @param args its arguments
 */
record PartitionCall(List<String> keys, List<String> args) {

	TimedScripts.Script of(QueueScript script) {
		return new TimedScripts.Script(script.script(), this.keys, this.args.toArray(String[]::new));
	}

}
