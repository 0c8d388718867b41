package dev.baton.sample.demo;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/** With {@code --demo} (or {@code app.demo.enabled=true}), runs the scenarios once the app is up. */
@Component
class DemoRunner implements ApplicationRunner {

	private static final Log logger = LogFactory.getLog(DemoRunner.class);

	private final DemoScenarios scenarios;

	private final Environment environment;

	DemoRunner(DemoScenarios scenarios, Environment environment) {
		this.scenarios = scenarios;
		this.environment = environment;
	}

	@Override
	public void run(ApplicationArguments args) {
		if (!args.containsOption("demo") && !this.environment.getProperty("app.demo.enabled", Boolean.class, false)) {
			return;
		}
		int port = this.environment.getRequiredProperty("local.server.port", Integer.class);
		new Thread(() -> logger.info("Demo report:" + System.lineSeparator() + this.scenarios.run(port)), "baton-demo")
			.start();
	}

}
