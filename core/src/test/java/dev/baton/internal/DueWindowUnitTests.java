package dev.baton.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import dev.baton.queue.DelayQueue;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The checks, rounding, order and page tokens of {@link DueWindow}, without Redis. */
class DueWindowUnitTests {

	private static final Instant FROM = Instant.parse("2030-01-01T00:00:00Z");

	private static final Instant TO = FROM.plusSeconds(60);

	@Test
	void aTokenCarriesTheCursorOfItsQueueAndWindow() {
		DueWindow window = DueWindow.of("orders", FROM, TO, 10, null);
		String token = window.nextPageToken(new DueWindow.Cursor(FROM.toEpochMilli() + 5, "order 7/ü"));

		assertThat(token).matches("[A-Za-z0-9_-]+");
		assertThat(DueWindow.of("orders", FROM, TO, 3, token).after())
			.isEqualTo(new DueWindow.Cursor(FROM.toEpochMilli() + 5, "order 7/ü"));
		assertThatIllegalArgumentException().isThrownBy(() -> DueWindow.of("invoices", FROM, TO, 10, token))
			.withMessage("Page token is for queue 'orders', not 'invoices'");
		assertThatIllegalArgumentException().isThrownBy(() -> DueWindow.of("orders", FROM.minusMillis(1), TO, 10, token))
			.withMessageContaining("is for the window [2030-01-01T00:00:00Z, 2030-01-01T00:01:00Z)");
	}

	@Test
	void aTokenChangedOrCutIsRefusedAsNoToken() {
		String token = DueWindow.of("orders", FROM, TO, 10, null).nextPageToken(new DueWindow.Cursor(FROM.toEpochMilli(), "o-12"));
		String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
		List<String> bad = new ArrayList<>(List.of("", "%%%", token.substring(1), token.substring(0, token.length() - 1),
				encode(text.replace("o-12", "o-13")), encode(text.replace("baton-due-1", "baton-due-2"))));
		for (String corrupted : bad) {
			assertThatIllegalArgumentException().as(corrupted)
				.isThrownBy(() -> DueWindow.of("orders", FROM, TO, 10, corrupted))
				.withMessageContaining("is not one that dueBetween returned for queue 'orders'");
		}
	}

	@Test
	void badWindowsAndLimitsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> DueWindow.of("orders", TO, FROM, 10, null))
			.withMessageContaining("must not be after its end");
		assertThatIllegalArgumentException().isThrownBy(() -> DueWindow.of("orders", null, TO, 10, null));
		assertThatIllegalArgumentException().isThrownBy(() -> DueWindow.of("orders", FROM, TO, 0, null))
			.withMessageContaining("Page size must be between 1 and 1000");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DueWindow.of("orders", FROM, TO, DelayQueue.MAX_PAGE_SIZE + 1, null));
		assertThat(DueWindow.of("orders", FROM, TO, DelayQueue.MAX_PAGE_SIZE, null).limit()).isEqualTo(1000);
	}

	@Test
	void windowsAreWholeMillisecondsRoundedUpAndCutToStorableDueTimes() {
		assertThat(DueWindow.Range.of(FROM.plusNanos(1), TO.plusNanos(999_999)))
			.isEqualTo(new DueWindow.Range(FROM.toEpochMilli() + 1, TO.toEpochMilli() + 1));
		assertThat(DueWindow.Range.of(Instant.MIN, Instant.MAX))
			.isEqualTo(new DueWindow.Range(0, DelayQueue.MAX_DUE_AT.toEpochMilli() + 1));
		assertThat(DueWindow.Range.of(FROM, FROM).contains(FROM.toEpochMilli())).isFalse();
	}

	@Test
	void idsAreInCodePointOrder() {
		List<String> ids = new ArrayList<>(List.of("\uD83D\uDE00", "\uFF21", "é", "ab", "a", "B", "a-b"));
		ids.sort(DueWindow::compareIds);

		assertThat(ids).containsExactly("B", "a", "a-b", "ab", "é", "\uFF21", "\uD83D\uDE00");
		assertThat(DueWindow.ORDER.compare(new DueWindow.Cursor(1, "z"), new DueWindow.Cursor(2, "a"))).isNegative();
	}

	private static String encode(String text) {
		return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
	}

}
