package dev.baton.docs.gettingstarted;

/** The payload of docs/getting-started.md, step 4. */
public record Reminder(String userId, String text) {
}
