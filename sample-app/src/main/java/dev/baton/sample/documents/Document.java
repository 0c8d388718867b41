package dev.baton.sample.documents;

/** A document and the number of edits saved to it. */
public record Document(String id, String content, int version) {
}
