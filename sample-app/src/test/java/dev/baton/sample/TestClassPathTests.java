package dev.baton.sample;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application's tests with {@code spring-boot-starter-test} and {@code baton-test}: one
 * {@code org.json.JSONObject} on the class path, else every {@code @SpringBootTest} warns "Found
 * multiple occurrences of org.json.JSONObject on the class path".
 */
class TestClassPathTests {

	@Test
	void batonTestBringsNoSecondOrgJson() throws IOException {
		List<URL> copies = Collections.list(getClass().getClassLoader().getResources("org/json/JSONObject.class"));
		assertThat(copies).hasSizeLessThanOrEqualTo(1);
	}

}
