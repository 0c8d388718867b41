package dev.baton.sample.exports;

import java.util.Map;

import dev.baton.lock.LockNotAcquiredException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /documents/{id}/exports}: 202 with the task id, 409 while an export of the
 * document is pending; {@code GET /exports} lists the documents exported.
 */
@RestController
class ExportController {

	private final ExportService exports;

	ExportController(ExportService exports) {
		this.exports = exports;
	}

	@PostMapping("/documents/{id}/exports")
	@ResponseStatus(HttpStatus.ACCEPTED)
	Map<String, String> export(@PathVariable String id) {
		return Map.of("task", this.exports.requestExport(id));
	}

	@GetMapping("/exports")
	Map<String, Integer> exported() {
		return this.exports.exported();
	}

	@ExceptionHandler
	ProblemDetail pending(LockNotAcquiredException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "An export of this document is pending");
	}

}
