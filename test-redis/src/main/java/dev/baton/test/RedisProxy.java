package dev.baton.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy between the code under test and a Redis server, on a free loopback port, that
 * injects network faults: {@linkplain #cut() cut} the connections, {@linkplain #blackHole()
 * black-hole} them, add {@linkplain #latency(Duration) latency}, and {@linkplain #heal() heal}.
 * Point the application's connection at {@link #host()} and {@link #port()} instead of the
 * server's.
 *
 * <p>Limits: loopback only; latency delays each chunk read from a socket, one way, so a request
 * and its reply take twice the latency; bytes that arrive during a black hole are dropped, and
 * healing closes the connections that lost bytes (a TCP stream cannot skip them), so clients
 * reconnect as after a long partition.
 */
public final class RedisProxy implements AutoCloseable {

	private static final AtomicInteger proxies = new AtomicInteger();

	private final String targetHost;

	private final int targetPort;

	private final ServerSocket listener;

	private final String name = "baton-redis-proxy-" + proxies.incrementAndGet();

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private volatile Mode mode = Mode.FORWARD;

	private volatile long latencyNanos;

	/** Set by {@link #dropNextReplyAndReset()} until a request is forwarded under it. */
	private final AtomicBoolean resetArmed = new AtomicBoolean();

	private RedisProxy(String targetHost, int targetPort) {
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		try {
			this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot open a proxy port", ex);
		}
		daemon(this::accept, this.name + "-accept").start();
	}

	/**
	 * Starts a proxy to the given server.
	 * @param server the server to forward to
	 * @return the running proxy
	 */
	public static RedisProxy to(RedisServer server) {
		return to(server.host(), server.port());
	}

	/**
	 * Starts a proxy to the given address.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the running proxy
	 */
	public static RedisProxy to(String host, int port) {
		return new RedisProxy(host, port);
	}

	/** The host to connect to: the loopback address. */
	public String host() {
		return "127.0.0.1";
	}

	/** The port to connect to. */
	public int port() {
		return this.listener.getLocalPort();
	}

	/** A {@code redis://host:port} URL of the proxy. */
	public String url() {
		return "redis://" + host() + ":" + port();
	}

	/**
	 * Closes every open connection at once (the client sees the connection end) and closes every
	 * new one as soon as it is accepted, until {@link #heal()}.
	 */
	public void cut() {
		this.mode = Mode.CUT;
		this.links.forEach(Link::close);
	}

	/**
	 * Forwards nothing either way until {@link #heal()}: connections stay open and new ones are
	 * accepted, but requests and replies vanish, as in a network partition where packets are
	 * dropped. Commands then wait for their timeouts.
	 */
	public void blackHole() {
		this.mode = Mode.BLACK_HOLE;
	}

	/**
	 * Delays every chunk forwarded, in either direction.
	 * @param oneWay the delay of one direction
	 */
	public void latency(Duration oneWay) {
		this.latencyNanos = oneWay.toNanos();
	}

	/**
	 * Black-holes the connections open now that subscribed to a channel (pub/sub), as
	 * {@link #blackHole()} does, until {@link #heal()}; every other connection forwards as before.
	 */
	public void blackHoleSubscribers() {
		this.links.stream().filter((link) -> link.subscriber).forEach((link) -> link.blackHoled = true);
	}

	/**
	 * Forwards the next request that a client sends to the server, then drops the server's reply
	 * to it and closes that connection: the command ran, but the client never learns its outcome.
	 * A client that re-sends unanswered commands after reconnecting (Lettuce does) runs it twice.
	 */
	public void dropNextReplyAndReset() {
		this.resetArmed.set(true);
	}

	/**
	 * Forwards normally again, without latency. Connections that lost bytes in a black hole are
	 * closed, so that clients reconnect instead of reading replies that do not match.
	 */
	public void heal() {
		this.latencyNanos = 0;
		this.mode = Mode.FORWARD;
		this.links.forEach((link) -> link.blackHoled = false);
		this.links.stream().filter((link) -> link.lostBytes).forEach(Link::close);
	}

	/** Stops the proxy and closes every connection. */
	@Override
	public void close() {
		this.mode = Mode.CUT;
		closeQuietly(this.listener);
		this.links.forEach(Link::close);
	}

	private void accept() {
		while (!this.listener.isClosed()) {
			Socket client;
			try {
				client = this.listener.accept();
			}
			catch (IOException ex) {
				return;
			}
			if (this.mode == Mode.CUT) {
				closeQuietly(client);
				continue;
			}
			try {
				Socket server = new Socket();
				server.connect(new InetSocketAddress(this.targetHost, this.targetPort), 2000);
				Link link = new Link(client, server);
				this.links.add(link);
				link.start();
			}
			catch (IOException ex) {
				closeQuietly(client);
			}
		}
	}

	private static final byte[] SUBSCRIBE = "SUBSCRIBE".getBytes(StandardCharsets.US_ASCII);

	private static boolean contains(byte[] buffer, int length, byte[] part) {
		for (int i = 0; i + part.length <= length; i++) {
			if (Arrays.equals(buffer, i, i + part.length, part, 0, part.length)) {
				return true;
			}
		}
		return false;
	}

	private static Thread daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// closing anyway
		}
	}

	private enum Mode {

		FORWARD, CUT, BLACK_HOLE

	}

	/** One client connection and its connection to the server, pumped both ways. */
	private final class Link {

		private final Socket client;

		private final Socket server;

		private volatile boolean lostBytes;

		/** Whether the client sent a SUBSCRIBE on this link: a pub/sub connection. */
		private volatile boolean subscriber;

		/** Whether this link alone forwards nothing, until healed. */
		private volatile boolean blackHoled;

		/** Whether this link forwarded the request whose reply is to be dropped. */
		private volatile boolean resetOnReply;

		Link(Socket client, Socket server) {
			this.client = client;
			this.server = server;
		}

		void start() throws IOException {
			InputStream fromClient = this.client.getInputStream();
			OutputStream toClient = this.client.getOutputStream();
			InputStream fromServer = this.server.getInputStream();
			OutputStream toServer = this.server.getOutputStream();
			daemon(() -> pump(fromClient, toServer, true), RedisProxy.this.name + "-up").start();
			daemon(() -> pump(fromServer, toClient, false), RedisProxy.this.name + "-down").start();
		}

		private void pump(InputStream in, OutputStream out, boolean requests) {
			byte[] buffer = new byte[16 * 1024];
			try {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					if (RedisProxy.this.mode != Mode.FORWARD || this.blackHoled) {
						this.lostBytes = true;
						continue;
					}
					if (!requests && this.resetOnReply) {
						break;
					}
					long latency = RedisProxy.this.latencyNanos;
					if (latency > 0) {
						TimeUnit.NANOSECONDS.sleep(latency);
					}
					if (requests && !this.subscriber && contains(buffer, read, SUBSCRIBE)) {
						this.subscriber = true;
					}
					if (requests && RedisProxy.this.resetArmed.compareAndSet(true, false)) {
						this.resetOnReply = true;
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// the link ends
			}
			close();
		}

		void close() {
			closeQuietly(this.client);
			closeQuietly(this.server);
			RedisProxy.this.links.remove(this);
		}

	}

}
