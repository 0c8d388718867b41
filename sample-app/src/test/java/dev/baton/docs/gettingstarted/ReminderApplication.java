package dev.baton.docs.gettingstarted;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application of docs/getting-started.md: the empty Spring Boot application it starts from. */
@SpringBootApplication
public class ReminderApplication {

}
