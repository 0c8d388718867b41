package dev.baton.autoconfigure.actuate;

import java.io.IOException;
import java.util.Locale;
import java.util.Set;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

/**
 * Answers 415 to the requests to the {@code baton} endpoint that a cross-site page can make a
 * browser send without a CORS preflight: a {@code POST} with no content type or a simple one
 * ({@code application/x-www-form-urlencoded}, {@code multipart/form-data}, {@code text/plain}),
 * and any other write with a simple one. None of the endpoint's writes is such a request, but
 * Spring's hidden-method filter turns a form's {@code POST} with {@code _method=DELETE} into a
 * {@code DELETE}, a cancel or purge; this filter runs before it, so it sees what the browser sent.
 * It logs nothing: the request is refused before anything reads it.
 */
final class BatonEndpointCrossSiteFilter implements Filter {

	/** Before Spring Boot's hidden-method filter ({@code -10000}), after its character-encoding and observation filters. */
	static final int ORDER = -10_001;

	private static final Set<String> SIMPLE_CONTENT_TYPES = Set.of("application/x-www-form-urlencoded",
			"multipart/form-data", "text/plain");

	private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

	@Override
	public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		if (request instanceof HttpServletRequest http && response instanceof HttpServletResponse answer
				&& isCrossSiteSendable(http.getMethod(), http.getContentType())) {
			answer.setStatus(HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE);
			return;
		}
		chain.doFilter(request, response);
	}

	static boolean isCrossSiteSendable(String method, @Nullable String contentType) {
		if (contentType == null) {
			// a body-less cross-site POST has none; a DELETE without one needs a preflight
			return "POST".equals(method);
		}
		return !READS.contains(method) && SIMPLE_CONTENT_TYPES.contains(mediaType(contentType));
	}

	private static String mediaType(String contentType) {
		int parameters = contentType.indexOf(';');
		String type = (parameters >= 0) ? contentType.substring(0, parameters) : contentType;
		return type.trim().toLowerCase(Locale.ROOT);
	}

}
