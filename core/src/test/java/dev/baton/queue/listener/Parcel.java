package dev.baton.queue.listener;

record Parcel(String id, int weight) {

}
