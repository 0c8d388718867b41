package dev.baton.benchmarks.lock;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import dev.baton.benchmarks.support.CpuClock;

/**
 * The second JVM of the two-JVM contended scenario. Protocol on standard input/output:
 * it prints {@code READY} once connected; for every {@code RUN <start> <deadline>} line it
 * runs its threads on the shared lock and prints
 * {@code DONE <pairs> <cpu nanos> <hand-off samples>}; end of input stops it.
 */
public final class LockChild {

	public static final String MODE = "lock-child";

	/** Owner ids of this JVM's threads start here, so that they differ from the parent's. */
	static final long OWNER_BASE = 1000;

	private LockChild() {
	}

	/**
	 * Runs the child.
	 * @param arguments implementation name, Redis URL, hand-off board file, lock name, threads
	 * @throws IOException when standard input fails
	 */
	public static void main(String[] arguments) throws IOException {
		LockImplementation implementation = LockImplementations.all()
			.stream()
			.filter((candidate) -> candidate.name().equals(arguments[0]))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("Unknown lock implementation " + arguments[0]));
		int threads = Integer.parseInt(arguments[4]);
		try (LockClient client = implementation.connect(arguments[1]);
				HandoffBoard board = HandoffBoard.open(Path.of(arguments[2]))) {
			BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			System.out.println("READY");
			for (String line = commands.readLine(); line != null; line = commands.readLine()) {
				String[] run = line.split(" ");
				long cpuBefore = CpuClock.processCpuNanos();
				LockWorkload.Outcome outcome = LockWorkload.contended(client, threads, arguments[3], board, OWNER_BASE,
						Long.parseLong(run[1]), Long.parseLong(run[2]));
				long cpu = CpuClock.processCpuNanos() - cpuBefore;
				System.out.println("DONE " + outcome.pairs() + " " + cpu + " " + outcome.handoffs().encode());
			}
		}
		System.exit(0);
	}

}
