package dev.baton.sample.documents;

import dev.baton.lock.LockNotAcquiredException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code PUT /documents/{id}}: 200 saved, 409 while another edit of the same document runs. */
@RestController
class DocumentController {

	private final DocumentService documents;

	DocumentController(DocumentService documents) {
		this.documents = documents;
	}

	@PutMapping("/documents/{id}")
	Document save(@PathVariable String id, @RequestBody String content) {
		return this.documents.save(id, content);
	}

	@GetMapping("/documents/{id}")
	ResponseEntity<Document> find(@PathVariable String id) {
		return ResponseEntity.of(this.documents.find(id));
	}

	@ExceptionHandler
	ProblemDetail beingEdited(LockNotAcquiredException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
				"The document is being edited by someone else; reload and try again");
	}

}
