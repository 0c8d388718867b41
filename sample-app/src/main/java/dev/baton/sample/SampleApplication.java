package dev.baton.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/** Baton's sample application: flash sale, unpaid-order auto-cancel, a nightly job, document locks. */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

	public static void main(String[] args) throws Exception {
		if (ServicesOnly.requested(args)) {
			ServicesOnly.run(args);
			return;
		}
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.addListeners(new EmbeddedRedisFallback());
		application.run(args);
	}

}
