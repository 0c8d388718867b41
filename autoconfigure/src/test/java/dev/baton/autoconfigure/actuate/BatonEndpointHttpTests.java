package dev.baton.autoconfigure.actuate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.baton.lock.LockLease;
import dev.baton.lock.redis.RedisLockManager;
import dev.baton.queue.DelayQueue;
import dev.baton.queue.DelayQueues;
import dev.baton.queue.Delivery;
import dev.baton.test.RedisTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=baton", "management.endpoint.baton.access=unrestricted",
				"management.endpoint.baton.writable-queues=reminders", "management.endpoint.baton.show-values=always",
				"baton.queue.queues.reminders.payload-type=dev.baton.autoconfigure.actuate.BatonEndpointHttpTests$Reminder" })
@RedisTest
class BatonEndpointHttpTests {

	private static final String KEYS = "baton:q:{reminders}:";

	private final HttpClient http = HttpClient.newHttpClient();

	private final JsonMapper json = JsonMapper.builder().build();

	@Value("${local.server.port}")
	int port;

	@Autowired
	@Qualifier("reminders")
	DelayQueue<Reminder> reminders;

	@Autowired
	RedisLockManager lockManager;

	@Autowired
	StringRedisTemplate redis;

	@Test
	void overviewListsQueueCountsAndHeldLocksWithFencingToken() {
		this.reminders.schedule("later", new Reminder("call"), Duration.ofHours(1));
		this.reminders.schedule("now", new Reminder("write"), Duration.ZERO);
		try (LockLease lease = this.lockManager.tryAcquire("nightly-report", Duration.ZERO).orElseThrow()) {
			// The token is issued when the holder first asks for it; the endpoint never asks.
			long token = lease.fencingToken();
			HttpResponse<String> response = send("GET", "/actuator/baton");

			assertThat(response.statusCode()).isEqualTo(200);
			JsonNode body = this.json.readTree(response.body());
			JsonNode queue = body.get("queues").get("reminders");
			assertThat(queue.get("scheduled").asLong()).isEqualTo(1);
			assertThat(queue.get("due").asLong()).isEqualTo(1);
			assertThat(queue.get("inFlight").asLong()).isZero();
			assertThat(queue.get("dead").asLong()).isZero();
			assertThat(queue.get("oldestDueAt").asString()).isNotBlank();
			JsonNode lock = body.get("locks").get(0);
			assertThat(lock.get("name").asString()).isEqualTo("nightly-report");
			assertThat(lock.get("fencingToken").asLong()).isEqualTo(token);
			assertThat(lock.get("validForMillis").asLong()).isPositive();
			assertThat(lock.get("renewed").asBoolean()).isTrue();
			assertThat(lock.has("heldForMillis")).isTrue();
			assertThat(lock.has("group")).isTrue();
		}
	}

	@Test
	void deleteLocksReleasesEveryLockOfThisInstance() {
		LockLease first = this.lockManager.tryAcquire("export:1", Duration.ZERO).orElseThrow();
		LockLease second = this.lockManager.tryAcquire("export:2", Duration.ZERO, Duration.ofMinutes(5)).orElseThrow();

		HttpResponse<String> response = send("DELETE", "/actuator/baton/locks");

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(this.json.readTree(response.body()).get("released").asInt()).isEqualTo(2);
		assertThat(first.isValid()).isFalse();
		assertThat(second.isValid()).isFalse();
		assertThat(this.lockManager.tryAcquire("export:1", Duration.ZERO)).hasValueSatisfying(LockLease::release);
		assertThat(send("DELETE", "/actuator/baton/nothing").statusCode()).isEqualTo(404);
	}

	@Test
	void queueListsNextDueTasksDeadLettersAndInFlightCountWithinTheLimit() {
		this.reminders.schedule("first", new Reminder("a"), Duration.ofMinutes(1));
		this.reminders.schedule("second", new Reminder("b"), Duration.ofMinutes(2));
		this.reminders.schedule("third", new Reminder("c"), Duration.ofMinutes(3));
		deadLetter("broken", "boom");
		this.reminders.schedule("claimed", new Reminder("d"), Duration.ZERO);
		assertThat(this.reminders.poll(1)).hasSize(1);

		HttpResponse<String> response = send("GET", "/actuator/baton/queues/reminders?limit=2");

		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode body = this.json.readTree(response.body());
		assertThat(body.get("name").asString()).isEqualTo("reminders");
		assertThat(body.get("stats").get("inFlight").asLong()).isEqualTo(1);
		assertThat(body.get("stats").get("dead").asLong()).isEqualTo(1);
		JsonNode nextDue = body.get("nextDue");
		assertThat(nextDue).hasSize(2);
		assertThat(nextDue.get(0).get("id").asString()).isEqualTo("first");
		assertThat(nextDue.get(0).get("payload").get("text").asString()).isEqualTo("a");
		assertThat(nextDue.get(0).get("dueAt").asString()).isNotBlank();
		assertThat(nextDue.get(0).get("scheduledAt").asString()).isNotBlank();
		assertThat(nextDue.get(1).get("id").asString()).isEqualTo("second");
		JsonNode deadLetter = body.get("deadLetters").get(0);
		assertThat(deadLetter.get("id").asString()).isEqualTo("broken");
		assertThat(deadLetter.get("payload").get("text").asString()).isEqualTo("broken");
		assertThat(deadLetter.get("attempts").asInt()).isEqualTo(1);
		assertThat(deadLetter.get("reason").asString()).isEqualTo("boom");
		assertThat(deadLetter.get("failedAt").asString()).isNotBlank();
	}

	@Test
	void queueShowsAWaitingTaskWhosePayloadCannotBeReadAsSuch(@Autowired DelayQueues queues) {
		queues.get("reminders", Integer.class).schedule("poison", 42, Duration.ofMinutes(1));
		this.reminders.schedule("fine", new Reminder("a"), Duration.ofMinutes(2));

		HttpResponse<String> response = send("GET", "/actuator/baton/queues/reminders");

		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode nextDue = this.json.readTree(response.body()).get("nextDue");
		assertThat(nextDue.get(0).get("id").asString()).isEqualTo("poison");
		assertThat(nextDue.get(0).get("payload").isNull()).isTrue();
		assertThat(nextDue.get(0).get("unreadablePayload").asString()).isEqualTo("42");
		assertThat(nextDue.get(1).get("payload").get("text").asString()).isEqualTo("a");
		assertThat(nextDue.get(1).get("unreadablePayload").isNull()).isTrue();
	}

	@Test
	void queueShowsADeadLetterWhosePayloadCannotBeReadWithItsStoredForm(@Autowired DelayQueues queues) {
		queues.get("reminders", Integer.class).schedule("poison", 42, Duration.ZERO);
		// A claim parks it at once, with its stored JSON.
		assertThat(this.reminders.poll(10)).isEmpty();

		HttpResponse<String> response = send("GET", "/actuator/baton/queues/reminders");

		JsonNode deadLetter = this.json.readTree(response.body()).get("deadLetters").get(0);
		assertThat(deadLetter.get("id").asString()).isEqualTo("poison");
		assertThat(deadLetter.get("payload").isNull()).isTrue();
		assertThat(deadLetter.get("unreadablePayload").asString()).isEqualTo("42");
	}

	/** show-values=always still passes every payload, unreadable payload and reason through the sanitizer. */
	@Test
	void sanitizerIsAppliedToEveryPayloadAndReason(@Autowired DelayQueues queues) {
		this.reminders.schedule("waiting", new Reminder("IBAN DE44500105175407324931"), Duration.ofHours(1));
		queues.get("reminders", String.class).schedule("poison", "DE44500105175407324931", Duration.ofHours(2));
		this.reminders.schedule("failed", new Reminder("IBAN DE44500105175407324931"), Duration.ZERO);
		assertThat(this.reminders.poll(1).get(0).deadLetter("IBAN DE44500105175407324931 refused")).isTrue();

		HttpResponse<String> response = send("GET", "/actuator/baton/queues/reminders");

		assertThat(response.body()).doesNotContain("DE4450");
		JsonNode body = this.json.readTree(response.body());
		assertThat(body.get("nextDue").get(0).get("payload").get("text").asString()).isEqualTo("IBAN DE**");
		assertThat(body.get("nextDue").get(1).get("unreadablePayload").asString()).isEqualTo("\"DE**\"");
		JsonNode deadLetter = body.get("deadLetters").get(0);
		assertThat(deadLetter.get("payload").get("text").asString()).isEqualTo("IBAN DE**");
		assertThat(deadLetter.get("reason").asString()).isEqualTo("IBAN DE** refused");
	}

	@Test
	void queueListsThePageOfADueWindowAndCountsTheWindowWhenAsked() {
		Instant base = Instant.parse("2090-01-01T00:00:00Z");
		for (String id : List.of("c", "a", "b")) {
			this.reminders.scheduleAt(id, new Reminder(id), base);
		}
		this.reminders.scheduleAt("next-day", new Reminder("d"), base.plus(Duration.ofDays(1)));
		String window = "/actuator/baton/queues/reminders?limit=2&from=" + base + "&to=" + base.plusSeconds(1);

		JsonNode first = this.json.readTree(send("GET", window).body()).get("dueWindow");
		assertThat(first.get("from").asString()).isEqualTo(base.toString());
		assertThat(first.get("count").asLong()).isEqualTo(3);
		assertThat(first.get("tasks")).extracting((task) -> task.get("id").asString()).containsExactly("a", "b");
		assertThat(first.get("tasks").get(0).get("payload").get("text").asString()).isEqualTo("a");
		String token = first.get("nextPageToken").asString();
		JsonNode second = this.json.readTree(send("GET", window + "&pageToken=" + token).body()).get("dueWindow");
		assertThat(second.get("tasks")).extracting((task) -> task.get("id").asString()).containsExactly("c");
		assertThat(second.get("nextPageToken").isNull()).isTrue();
		JsonNode open = this.json.readTree(send("GET", "/actuator/baton/queues/reminders?from=" + base).body())
			.get("dueWindow");
		assertThat(open.get("count").asLong()).as("to every due time").isEqualTo(4);
		assertThat(this.json.readTree(send("GET", "/actuator/baton/queues/reminders").body()).get("dueWindow").isNull())
			.as("only when asked")
			.isTrue();
	}

	@ParameterizedTest
	@ValueSource(strings = { "from=yesterday", "from=2090-01-02T00:00:00Z&to=2090-01-01T00:00:00Z",
			"from=2090-01-01T00:00:00Z&pageToken=garbage" })
	void aBadDueWindowIsABadRequest(String parameters) {
		HttpResponse<String> response = send("GET", "/actuator/baton/queues/reminders?" + parameters);

		assertThat(response.statusCode()).isEqualTo(400);
	}

	@Test
	void limitOutsideItsRangeIsABadRequest() {
		HttpResponse<String> response = send("GET", "/actuator/baton/queues/reminders?limit=201");

		assertThat(response.statusCode()).isEqualTo(400);
	}

	@Test
	void overlongTaskIdIsABadRequestForEveryWrite() {
		String id = "x".repeat(300);

		assertThat(send("DELETE", "/actuator/baton/queues/reminders/tasks/" + id).statusCode()).isEqualTo(400);
		assertThat(send("DELETE", "/actuator/baton/queues/reminders/dead-letters/" + id).statusCode()).isEqualTo(400);
		assertThat(send("POST", "/actuator/baton/queues/reminders/dead-letters/" + id + "/redrive").statusCode())
			.isEqualTo(400);
	}

	@Test
	void unknownQueueIsNotFoundAndNotCreated() {
		assertThat(send("GET", "/actuator/baton/queues/nope").statusCode()).isEqualTo(404);
		assertThat(send("POST", "/actuator/baton/queues/nope/dead-letters/x/redrive").statusCode()).isEqualTo(404);
		assertThat(send("DELETE", "/actuator/baton/queues/nope/dead-letters/x").statusCode()).isEqualTo(404);
		assertThat(send("DELETE", "/actuator/baton/queues/nope/tasks/x").statusCode()).isEqualTo(404);
		assertThat(send("GET", "/actuator/baton/elsewhere/reminders").statusCode()).isEqualTo(404);

		assertThat(this.redis.keys("baton:q:{nope}*")).isEmpty();
		assertThat(this.json.readTree(send("GET", "/actuator/baton").body()).get("queues").has("nope")).isFalse();
	}

	@Test
	void redriveMovesTheDeadLetterBackOnTheQueueDueNow() {
		deadLetter("broken", "boom");

		HttpResponse<String> response = send("POST", "/actuator/baton/queues/reminders/dead-letters/broken/redrive");

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(this.json.readTree(response.body()).get("outcome").asString()).isEqualTo("DONE");
		assertThat(this.redis.opsForZSet().score(KEYS + "dead", "broken")).isNull();
		assertThat(this.redis.opsForHash().hasKey(KEYS + "dead-payloads", "broken")).isFalse();
		assertThat(this.redis.opsForHash().hasKey(KEYS + "tasks", "broken")).isTrue();
		assertThat(this.redis.opsForZSet().size(KEYS + "due")).isEqualTo(1);
		List<Delivery<Reminder>> redelivered = this.reminders.poll(1);
		assertThat(redelivered).extracting(Delivery::id).containsExactly("broken");
		assertThat(redelivered.get(0).attempt()).isEqualTo(1);
	}

	/** A cross-site form cannot send it: redrive is a POST that needs Content-Type: application/json. */
	@Test
	void redriveWithoutJsonContentTypeIsRefused() {
		deadLetter("broken", "boom");

		HttpResponse<String> response = send(HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port
					+ "/actuator/baton/queues/reminders/dead-letters/broken/redrive"))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build());

		assertThat(response.statusCode()).isEqualTo(415);
		assertThat(this.redis.opsForZSet().score(KEYS + "dead", "broken")).isNotNull();
	}

	/** Nor with the content types a cross-site form can send (a simple request, no CORS preflight). */
	@ParameterizedTest
	@ValueSource(strings = { "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x" })
	void redriveWithAContentTypeAFormCanSendIsRefused(String contentType) {
		deadLetter("broken", "boom");

		HttpResponse<String> response = send(HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port
					+ "/actuator/baton/queues/reminders/dead-letters/broken/redrive"))
			.POST(HttpRequest.BodyPublishers.ofString("x=1"))
			.header("Content-Type", contentType)
			.build());

		assertThat(response.statusCode()).isEqualTo(415);
		assertThat(this.redis.opsForZSet().score(KEYS + "dead", "broken")).isNotNull();
	}

	/**
	 * Purge and cancel are DELETEs, which a cross-site page cannot send without a preflight: a
	 * form's POST (with Spring's {@code _method} override, off by default in Boot) is refused by the
	 * endpoint's cross-site filter (415) and a link's GET to their paths changes nothing.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "/actuator/baton/queues/reminders/dead-letters/broken",
			"/actuator/baton/queues/reminders/tasks/waiting" })
	void purgeAndCancelCannotBeSentByAFormOrALink(String path) {
		deadLetter("broken", "boom");
		this.reminders.schedule("waiting", new Reminder("w"), Duration.ofHours(1));
		URI uri = URI.create("http://localhost:" + this.port + path);

		HttpResponse<String> form = send(HttpRequest.newBuilder(uri)
			.POST(HttpRequest.BodyPublishers.ofString("_method=DELETE"))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.build());
		HttpResponse<String> link = send(HttpRequest.newBuilder(uri).GET().build());

		assertThat(form.statusCode()).isEqualTo(415);
		assertThat(link.statusCode()).isBetween(400, 499);
		assertThat(this.redis.opsForZSet().score(KEYS + "dead", "broken")).isNotNull();
		assertThat(this.reminders.find("waiting")).isPresent();
	}

	@Test
	void purgeDeletesTheDeadLetterForGood() {
		deadLetter("broken", "boom");

		HttpResponse<String> response = send("DELETE", "/actuator/baton/queues/reminders/dead-letters/broken");

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(this.redis.opsForZSet().score(KEYS + "dead", "broken")).isNull();
		assertThat(this.redis.opsForHash().hasKey(KEYS + "dead-payloads", "broken")).isFalse();
		assertThat(this.redis.opsForHash().hasKey(KEYS + "dead-info", "broken")).isFalse();
		assertThat(this.redis.opsForHash().hasKey(KEYS + "tasks", "broken")).isFalse();
		assertThat(send("DELETE", "/actuator/baton/queues/reminders/dead-letters/broken").statusCode())
			.isEqualTo(404);
	}

	@Test
	void cancelDeletesTheWaitingTaskButNotOneInFlight() {
		this.reminders.schedule("waiting", new Reminder("w"), Duration.ofHours(1));
		this.reminders.schedule("claimed", new Reminder("c"), Duration.ZERO);
		assertThat(this.reminders.poll(1)).extracting(Delivery::id).containsExactly("claimed");

		HttpResponse<String> cancelled = send("DELETE", "/actuator/baton/queues/reminders/tasks/waiting");
		HttpResponse<String> inFlight = send("DELETE", "/actuator/baton/queues/reminders/tasks/claimed");

		assertThat(cancelled.statusCode()).isEqualTo(200);
		assertThat(this.json.readTree(cancelled.body()).get("action").asString()).isEqualTo("cancel");
		assertThat(this.redis.opsForHash().hasKey(KEYS + "tasks", "waiting")).isFalse();
		assertThat(this.redis.opsForHash().hasKey(KEYS + "meta", "waiting")).isFalse();
		assertThat(this.redis.opsForZSet().size(KEYS + "due")).isZero();
		assertThat(inFlight.statusCode()).isEqualTo(404);
		assertThat(this.json.readTree(inFlight.body()).get("outcome").asString()).isEqualTo("NOT_FOUND");
		assertThat(this.redis.opsForHash().hasKey(KEYS + "tasks", "claimed")).isTrue();
		assertThat(this.redis.opsForZSet().score(KEYS + "inflight", "claimed")).isNotNull();
	}

	private void deadLetter(String id, String reason) {
		this.reminders.schedule(id, new Reminder(id), Duration.ZERO);
		List<Delivery<Reminder>> claimed = this.reminders.poll(1);
		assertThat(claimed).extracting(Delivery::id).containsExactly(id);
		assertThat(claimed.get(0).deadLetter(reason)).isTrue();
	}

	private HttpResponse<String> send(String method, String path) {
		return send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.header("Content-Type", "application/json")
			.build());
	}

	private HttpResponse<String> send(HttpRequest request) {
		try {
			return this.http.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	record Reminder(String text) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		/** Masks German IBANs wherever the endpoint would show one. */
		@Bean
		BatonPayloadSanitizer ibanMasking() {
			return (queue, part, value) -> switch (part) {
				case PAYLOAD -> (value instanceof Reminder reminder) ? new Reminder(maskIban(reminder.text())) : value;
				case UNREADABLE_PAYLOAD, REASON -> maskIban((String) value);
			};
		}

		private static String maskIban(String text) {
			return text.replaceAll("DE\\d{20}", "DE**");
		}

	}

}
