package dev.baton.harness;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.baton.support.ChildJvm;

import org.jspecify.annotations.Nullable;

/**
 * A lock instance in a JVM of its own ({@link ChildLockProcess}), connected straight to the
 * standalone Redis or through the sentinels, that {@link FaultKind#JVM_PAUSE} freezes with {@code SIGSTOP}: none of its
 * threads runs, its sockets stay open, and its leases run out on Redis meanwhile, as in a long
 * garbage collection pause or a suspended VM. Its holders enter the workload's
 * {@link UnfencedCounter}, write to its {@link FencedRegister} and report their losses to the
 * run's {@link LossReports}, through this end of the protocol, so that {@link LockChecks} judge
 * them as they judge the instances' holders.
 */
final class ChildLockInstance implements AutoCloseable {

	static final String INVARIANT = "The child JVM's lock workers run to the end and hold nothing after";

	private static final int THREADS = 2;

	private final ChildJvm jvm;

	/** The track of its faults, after the instances'. */
	private final int index;

	/** The workload whose register, counter and checks its holders join, from {@link #start}. */
	private volatile LockWorkload workload;

	private final LossReports losses;

	private final Timeline timeline;

	/** The holders inside their section, by holder. */
	private final Map<String, Hold> inside = new ConcurrentHashMap<>();

	/** How many leases the child's manager still held once its workers had ended. */
	private final CompletableFuture<Long> done = new CompletableFuture<>();

	private final AtomicInteger rounds = new AtomicInteger();

	private final AtomicInteger sections = new AtomicInteger();

	private final AtomicInteger pauses = new AtomicInteger();

	private volatile long untilMillis;

	private volatile boolean closing;

	private ChildLockInstance(ChildJvm jvm, int index, LossReports losses, Timeline timeline) {
		this.jvm = jvm;
		this.index = index;
		this.losses = losses;
		this.timeline = timeline;
	}

	/**
	 * Starts the child JVM, and waits until its lock manager is up; its workers begin with
	 * {@link #start}.
	 * @param redis where Redis is, as {@link ChildLockProcess} takes it
	 * @param index the child's fault track
	 */
	static ChildLockInstance launch(List<String> redis, long seed, int index, LossReports losses, Timeline timeline)
			throws IOException, InterruptedException {
		List<String> arguments = new ArrayList<>(List.of(Long.toString(seed), Integer.toString(THREADS)));
		arguments.addAll(redis);
		ChildJvm jvm = ChildJvm.start(ChildLockProcess.class, arguments.toArray(String[]::new));
		ChildLockInstance child = new ChildLockInstance(jvm, index, losses, timeline);
		String first = jvm.awaitLine(ChildLockProcess.PREFIX, Duration.ofSeconds(30));
		if (!first.equals("ready")) {
			jvm.kill();
			throw new IllegalStateException("The child JVM began with '" + first + "'");
		}
		Thread reader = new Thread(child::serve, "harness-child-jvm");
		reader.setDaemon(true);
		reader.start();
		return child;
	}

	/** Lets the workers begin sections of the workload until {@code untilMillis} on the run's timeline. */
	void start(LockWorkload workload, long untilMillis) throws IOException {
		this.workload = workload;
		this.untilMillis = untilMillis;
		// The answer to its "ready", which launch() read.
		this.jvm.send("go");
	}

	/** Freezes the whole JVM for {@code pause}, then lets it run again. */
	void pause(Duration pause) throws IOException, InterruptedException {
		this.jvm.pause();
		this.pauses.incrementAndGet();
		this.jvm.resumeAfter(pause);
	}

	/**
	 * Waits for the workers to end and the child's lock manager to confirm every release; a child
	 * that does not within {@code atMost}, or still holds a lease, is a violation.
	 */
	void awaitDone(Duration atMost) throws InterruptedException {
		try {
			long held = this.done.get(atMost.toMillis(), TimeUnit.MILLISECONDS);
			if (held != 0) {
				this.workload.violations.add("locks", INVARIANT, "the child's lock manager still held " + held
						+ " lease(s) after every worker ended");
			}
		}
		catch (TimeoutException ex) {
			this.workload.violations.add("locks", INVARIANT,
					"the child's workers had not ended " + atMost.toSeconds() + " s after the end of the faults");
		}
		catch (ExecutionException ex) {
			this.workload.violations.add("locks", INVARIANT, "the child JVM ended early: " + ex.getCause());
		}
	}

	String summary() {
		return "child JVM: " + this.rounds.get() + " lock calls, " + this.sections.get() + " critical sections, "
				+ this.pauses.get() + " pauses";
	}

	/** Answers the child's requests, one at a time, until it ends. */
	private void serve() {
		try {
			for (;;) {
				String answer = answer(this.jvm.awaitLine(ChildLockProcess.PREFIX).split(" "));
				if (answer != null) {
					this.jvm.send(answer);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			if (!this.closing) {
				this.done.completeExceptionally(ex);
			}
		}
	}

	/** The answer to a request, or {@code null} for a report that gets none. */
	private @Nullable String answer(String[] request) {
		switch (request[0]) {
			case "begin" -> {
				this.rounds.incrementAndGet();
				return (this.timeline.now() < this.untilMillis) ? "go" : "stop";
			}
			case "enter" -> {
				Hold hold = new Hold(request[1], request[2], Long.parseLong(request[3]), this.timeline.now(), this);
				this.inside.put(hold.holder, hold);
				this.sections.incrementAndGet();
				this.workload.enter(hold);
				this.workload.register.write(hold);
			}
			case "write" -> this.workload.register.write(this.inside.get(request[1]));
			case "exit" -> {
				Hold hold = this.inside.remove(request[1]);
				hold.lostAtEnd = !Boolean.parseBoolean(request[2]);
				this.workload.exit(hold);
			}
			case "lost" -> {
				this.losses.lost(this.index, request[1], Long.parseLong(request[2]));
				return null;
			}
			case "done" -> this.done.complete(Long.parseLong(request[1]));
			default -> throw new IllegalStateException("Unknown request from the child JVM: " + String.join(" ", request));
		}
		return "ok";
	}

	@Override
	public void close() throws InterruptedException {
		this.closing = true;
		this.jvm.close();
	}

}
