package dev.baton.security;

import jakarta.servlet.DispatcherType;

import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.actuate.audit.InMemoryAuditEventRepository;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * What the secured test applications share: two users, {@code alice} in role {@code OPS} and
 * {@code bob} in role {@code SUPPORT} (password {@value #PASSWORD}), and Boot's in-memory audit
 * event repository, which stores the endpoint's {@code AuditApplicationEvent}s.
 */
@Configuration(proxyBeanMethods = false)
public class SecuredApp {

	/** Every user's password. */
	public static final String PASSWORD = "secret";

	@Bean
	InMemoryUserDetailsManager users() {
		return new InMemoryUserDetailsManager(
				User.withUsername("alice").password("{noop}" + PASSWORD).roles("OPS").build(),
				User.withUsername("bob").password("{noop}" + PASSWORD).roles("SUPPORT").build());
	}

	@Bean
	AuditEventRepository auditEvents() {
		return new InMemoryAuditEventRepository();
	}

	/**
	 * The usual start of a chain: every request authenticated, with HTTP basic, except error
	 * dispatches, so that a refusal keeps its status (CSRF's 403 comes before authentication, and
	 * its error page would otherwise answer 401). CSRF protection is left as the caller configures
	 * it (on unless told otherwise).
	 * @param http the chain's builder
	 * @return the builder, for the caller to finish
	 */
	public static HttpSecurity authenticatedWithBasic(HttpSecurity http) {
		return http.authorizeHttpRequests((requests) -> requests.dispatcherTypeMatchers(DispatcherType.ERROR)
			.permitAll()
			.anyRequest()
			.authenticated())
			.httpBasic((basic) -> {
			});
	}

}
