package dev.baton.security;

/**
 * The payload of the {@code reminders} queue.
 * @param text what to remind of
 */
public record Reminder(String text) {
}
