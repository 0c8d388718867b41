package dev.baton.sample.demo;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /demo} runs the scenarios against this instance and answers with the report as plain text. */
@RestController
class DemoController {

	private final DemoScenarios scenarios;

	DemoController(DemoScenarios scenarios) {
		this.scenarios = scenarios;
	}

	@PostMapping(path = "/demo", produces = "text/plain")
	String run(HttpServletRequest request) {
		return this.scenarios.run(request.getLocalPort()) + System.lineSeparator();
	}

}
