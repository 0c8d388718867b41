package dev.baton.sample.exports;

/**
 * The payload of an export task; the lock of the document travels with the task, not in it.
 *
 * @param documentId the document to export
 */
record ExportJob(String documentId) {

}
