package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The class path the production image copies (target/sagas-app.jar and target/lib, see the
 * Dockerfile) has no sandbox participants and no benchmarks, and the launcher on it refuses role
 * sandbox and {@code bench} with an error naming the missing module (docs/decisions/0031, 0033). An IT: it reads what {@code package} made.
 */
class ProductionImageIT {
    private static final Path TARGET = Path.of("target").toAbsolutePath();

    @Test
    void shouldLeaveTheSandboxJarOutOfTheProductionLibCopy() throws Exception {
        assertThat(jars(TARGET.resolve("lib"))).isNotEmpty().noneMatch(j -> j.startsWith("sandbox-"));
        assertThat(jars(TARGET.resolve("sandbox-lib"))).singleElement().asString().startsWith("sandbox-");
    }

    @Test
    void shouldExitWithAConfigurationErrorWhenRoleSandboxIsAskedOfTheProductionClassPath() throws Exception {
        // An external database is named (role sandbox needs one); the check comes before any connection.
        String output = launchOnTheImagesClassPath(Map.of("SAGA_DB_URL", "jdbc:postgresql://127.0.0.1:1/none",
                "SAGA_INVENTORY_PORT", "0", "SAGA_PAYMENT_PORT", "0", "SAGA_FRAUD_PORT", "0", "SAGA_HTTP_PORT", "0"),
                "sandbox");
        assertThat(output).contains("sagas: error: role sandbox needs the sandbox module")
                .doesNotContain("ClassNotFoundException").doesNotContain("NoClassDefFoundError");
    }

    @Test
    void shouldHaveNoBenchmarkOrFuzzerOnTheProductionClassPathAndSaySoWhenBenchOrFuzzIsAsked() throws Exception {
        // The benchmarks and the fuzzer are a module that builds on app (docs/decisions/0033): nothing
        // here holds them nor the relay's benchmark, a module of its own beside the relay, nor the
        // test support the fuzzer draws its hostile requests from
        List<String> lib = jars(TARGET.resolve("lib"));
        assertThat(lib).noneMatch(j -> j.startsWith("benchmarks") || j.startsWith("relay-bench")
                || j.startsWith("testkit"));
        assertThat(lib).filteredOn(j -> j.startsWith("outbox-relay")).hasSize(1);
        for (String relay : lib.stream().filter(j -> j.startsWith("outbox-relay")).toList()) {
            assertThat(classNames(TARGET.resolve("lib").resolve(relay))).isNotEmpty()
                    .noneMatch(n -> n.startsWith("org/sagas/relay/bench/"));
        }
        assertThat(classNames(TARGET.resolve("sagas-app.jar"))).isNotEmpty()
                .noneMatch(n -> n.startsWith("org/sagas/app/bench/") || n.startsWith("org/sagas/app/fuzz/"));
        String output = launchOnTheImagesClassPath(Map.of(), "bench", "steady");
        assertThat(output).contains("sagas: error: ./sagas bench needs the benchmarks module")
                .doesNotContain("Exception");
        assertThat(launchOnTheImagesClassPath(Map.of(), "fuzz", "--seconds", "1"))
                .contains("sagas: error: ./sagas fuzz needs the benchmarks module").doesNotContain("Exception");
    }

    /**
     * Runs the launcher with {@code args} on the class path the image copies, with {@code env} added,
     * and returns its output once it has exited with 1 (a configuration error).
     */
    private static String launchOnTheImagesClassPath(Map<String, String> env, String... args) throws Exception {
        String classPath = TARGET.resolve("sagas-app.jar") + File.pathSeparator + TARGET.resolve("lib") + "/*";
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new java.util.ArrayList<>(List.of(java.toString(), "-cp", classPath,
                "org.sagas.app.Main"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();

        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("exits").isTrue();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(output).isEqualTo(1);
        return output;
    }

    /** The class files' entry names in {@code jar}. */
    private static List<String> classNames(Path jar) throws Exception {
        try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar.toFile())) {
            return file.stream().map(java.util.jar.JarEntry::getName).filter(n -> n.endsWith(".class")).toList();
        }
    }

    private static List<String> jars(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".jar")).toList();
        }
    }
}
