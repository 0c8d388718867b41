package dev.baton.queue.listener;

public record Parcel(String id, int weight) {

}
