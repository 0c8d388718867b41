package dev.baton.docs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.net.URL;
import java.nio.file.Path;
import java.util.Collections;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the user guide honest: every Java snippet in {@code docs/} and the README stands in a
 * compiled source file of this repository, and every {@code baton.*} property in the
 * configuration metadata is described in {@code docs/configuration.md}.
 */
class DocumentationTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

	@Test
	void everyJavaSnippetIsCompiledSource() throws IOException {
		String sources = normalize(compiledSources());
		List<String> missing = new ArrayList<>();
		for (Path page : pages()) {
			Matcher block = JAVA_BLOCK.matcher(Files.readString(page));
			while (block.find()) {
				String snippet = block.group(1);
				if (!sources.contains(normalize(snippet))) {
					missing.add(ROOT.relativize(page) + ":\n" + snippet);
				}
			}
		}
		assertThat(missing).as("Java snippets that no compiled source contains").isEmpty();
	}

	@Test
	void everyPropertyIsDocumented() throws IOException {
		String guide = Files.readString(ROOT.resolve("docs/configuration.md"));
		List<String> undocumented = new ArrayList<>();
		List<String> properties = batonProperties();
		for (String name : properties) {
			if (!guide.contains("`" + name + "`")) {
				undocumented.add(name);
			}
		}
		assertThat(properties).as("baton.* properties in the configuration metadata").isNotEmpty();
		assertThat(undocumented).as("properties missing from docs/configuration.md").isEmpty();
	}

	@Test
	void everyDocumentedPropertyExists() throws IOException {
		String guide = Files.readString(ROOT.resolve("docs/configuration.md"));
		List<String> properties = batonProperties();
		Matcher documented = Pattern.compile("`(baton\\.[a-z0-9.-]+)`").matcher(guide);
		List<String> unknown = new ArrayList<>();
		while (documented.find()) {
			if (!properties.contains(documented.group(1))) {
				unknown.add(documented.group(1));
			}
		}
		assertThat(unknown).as("properties in docs/configuration.md that the metadata does not have").isEmpty();
	}

	private static List<String> batonProperties() throws IOException {
		List<String> names = new ArrayList<>();
		JsonMapper json = JsonMapper.builder().build();
		for (URL url : Collections.list(DocumentationTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream metadata = url.openStream()) {
				for (JsonNode property : json.readTree(metadata).path("properties")) {
					String name = property.path("name").asString();
					if (name.startsWith("baton.")) {
						names.add(name);
					}
				}
			}
		}
		return names;
	}

	private static List<Path> pages() throws IOException {
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			return Stream.concat(docs.filter((path) -> path.toString().endsWith(".md")), Stream.of(ROOT.resolve("README.md")))
				.sorted()
				.toList();
		}
	}

	private static String compiledSources() throws IOException {
		StringBuilder all = new StringBuilder();
		try (Stream<Path> files = Files.walk(ROOT)) {
			for (Path file : files.filter(DocumentationTests::isCompiledSource).toList()) {
				all.append(Files.readString(file)).append('\n');
			}
		}
		return all.toString();
	}

	private static boolean isCompiledSource(Path file) {
		String path = ROOT.relativize(file).toString().replace('\\', '/');
		return path.endsWith(".java") && path.contains("/src/") && !path.contains("/target/");
	}

	// Indentation and blank lines differ between a page and a source file; the code must not.
	private static String normalize(String code) {
		return code.lines().map(String::strip).filter((line) -> !line.isEmpty()).collect(Collectors.joining("\n"));
	}

}
