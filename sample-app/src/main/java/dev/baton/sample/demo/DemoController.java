package dev.baton.sample.demo;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /demo} runs the scenarios and answers with the report as plain text. */
@RestController
class DemoController {

	private final DemoScenarios scenarios;

	private final int port;

	DemoController(DemoScenarios scenarios, @Value("${local.server.port}") int port) {
		this.scenarios = scenarios;
		this.port = port;
	}

	@PostMapping(path = "/demo", produces = "text/plain")
	String run() {
		return this.scenarios.run(this.port) + System.lineSeparator();
	}

}
