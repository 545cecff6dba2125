package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The sandbox module stays out of the product's code (docs/decisions/0031): {@code app}'s main code
 * names its classes in {@link SandboxParticipants} alone (any other class would load them on the
 * production image, which leaves them out), and the main code of {@code orchestrator},
 * {@code adapters} and {@code reconciler} never does (nor their poms outside test scope). Plain JUnit: it reads the sources of the checkout the build runs in.
 */
class SandboxSeamTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** A sandbox class named in code; string literals (the module probe's class name) are cut first. */
    private static final Pattern NAMES_SANDBOX = Pattern.compile("\\borg\\.sagas\\.sandbox\\.");
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");

    @Test
    void shouldNameSandboxClassesOnlyInSandboxParticipantsWhenInAppsMainCode() throws IOException {
        assertThat(naming("app")).containsExactly("SandboxParticipants.java");
    }

    @Test
    void shouldNameNoSandboxClassWhenInTheOtherModulesMainCode() throws IOException {
        for (String module : List.of("engine", "orchestrator", "adapters", "reconciler", "outbox-relay")) {
            assertThat(naming(module)).as(module).isEmpty();
            assertThat(Files.readString(ROOT.resolve(module).resolve("pom.xml")))
                    .as("%s's pom", module).doesNotContain("<artifactId>sandbox</artifactId>\n    </dependency>");
        }
    }

    /** The file names under {@code module}'s src/main/java whose code names a sandbox class. */
    private static List<String> naming(String module) throws IOException {
        try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
            return files.filter(f -> f.toString().endsWith(".java")).filter(SandboxSeamTest::namesSandbox)
                    .map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    private static boolean namesSandbox(Path file) {
        try {
            return NAMES_SANDBOX.matcher(STRING.matcher(Files.readString(file)).replaceAll("\"\"")).find();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
