package dev.baton.sample.exports;

/**
 * The payload of an export task: the document, and the token of the lock that the request took
 * for it, which only this task may restore.
 *
 * @param documentId the document to export
 * @param lockToken the lock's lease token, as a string
 */
record ExportJob(String documentId, String lockToken) {

}
