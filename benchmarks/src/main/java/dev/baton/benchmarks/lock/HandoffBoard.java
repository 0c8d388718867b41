package dev.baton.benchmarks.lock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Memory shared by every thread holding one contended lock, in this JVM and in a child JVM (a
 * memory-mapped file): who holds the lock, who released it last and when. It measures the
 * hand-off latency (from the moment the holder calls {@code unlock()} to the moment another
 * owner's {@code lock()} returns; {@link System#nanoTime()} is the machine-wide monotonic clock on
 * Linux) and counts mutual-exclusion violations (two owners inside at once).
 */
final class HandoffBoard implements AutoCloseable {

	private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
			ByteOrder.nativeOrder());

	private static final int HOLDER = 0;

	private static final int LAST_OWNER = 8;

	private static final int RELEASED_AT = 16;

	private static final int VIOLATIONS = 24;

	private static final int SIZE = 32;

	private final Path file;

	private final FileChannel channel;

	private final MappedByteBuffer memory;

	private HandoffBoard(Path file) {
		this.file = file;
		try {
			this.channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
			this.memory = this.channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot map " + file, ex);
		}
	}

	static HandoffBoard create() {
		try {
			Path file = Files.createTempFile("baton-bench-handoff", ".bin");
			Files.write(file, new byte[SIZE]);
			file.toFile().deleteOnExit();
			return new HandoffBoard(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot create the hand-off board", ex);
		}
	}

	static HandoffBoard open(Path file) {
		return new HandoffBoard(file);
	}

	Path file() {
		return this.file;
	}

	void reset() {
		for (int offset = 0; offset < SIZE; offset += 8) {
			LONGS.setVolatile(this.memory, offset, 0L);
		}
	}

	/**
	 * Records that an owner has just acquired the lock.
	 * @param owner this thread's owner id, never 0
	 * @param now {@link System#nanoTime()} right after acquiring
	 * @return the hand-off latency in nanoseconds, or -1 when the previous holder was this owner
	 * (or there was none)
	 */
	long acquired(long owner, long now) {
		if (!LONGS.compareAndSet(this.memory, HOLDER, 0L, owner)) {
			LONGS.getAndAdd(this.memory, VIOLATIONS, 1L);
		}
		long previous = (long) LONGS.getVolatile(this.memory, LAST_OWNER);
		long releasedAt = (long) LONGS.getVolatile(this.memory, RELEASED_AT);
		return (previous != 0 && previous != owner) ? now - releasedAt : -1;
	}

	/**
	 * Records that an owner is about to call {@code unlock()}.
	 * @param owner this thread's owner id
	 */
	void releasing(long owner) {
		LONGS.setVolatile(this.memory, RELEASED_AT, System.nanoTime());
		LONGS.setVolatile(this.memory, LAST_OWNER, owner);
		LONGS.compareAndSet(this.memory, HOLDER, owner, 0L);
	}

	long violations() {
		return (long) LONGS.getVolatile(this.memory, VIOLATIONS);
	}

	@Override
	public void close() {
		try {
			this.channel.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
