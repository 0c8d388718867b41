package dev.baton.sample.documents;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import dev.baton.lock.annotation.DistributedLock;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Saves documents. An edit holds the document's lock for as long as it works on it; a second
 * edit of the same document does not wait ({@code waitTime = "0"}): it is refused at once, so a
 * double click cannot write twice.
 */
@Service
public class DocumentService {

	private final JdbcClient jdbc;

	private final Duration processingTime;

	DocumentService(JdbcClient jdbc, @Value("${app.documents.processing-time}") Duration processingTime) {
		this.jdbc = jdbc;
		this.processingTime = processingTime;
	}

	/**
	 * Replaces the content of a document, creating it if needed.
	 * @return the saved document
	 * @throws dev.baton.lock.LockNotAcquiredException if another edit of it is in progress
	 */
	@DistributedLock(key = "#id", waitTime = "0")
	@Transactional
	public Document save(String id, String content) {
		simulateWork();
		int version = find(id).map((current) -> current.version() + 1).orElse(1);
		this.jdbc.sql("merge into documents (id, content, version, updated_at) key (id) values (?, ?, ?, ?)")
			.params(id, content, version, Timestamp.from(Instant.now()))
			.update();
		return new Document(id, content, version);
	}

	public Optional<Document> find(String id) {
		return this.jdbc.sql("select id, content, version from documents where id = ?")
			.param(id)
			.query((rs, row) -> new Document(rs.getString("id"), rs.getString("content"), rs.getInt("version")))
			.optional();
	}

	// Stands in for validation, rendering or calls to other services during an edit.
	private void simulateWork() {
		try {
			Thread.sleep(this.processingTime.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while saving", ex);
		}
	}

}
