package org.sagas.embedded;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A JVM this test starts on its own class path, standing in for a product process that dies:
 * its stdin stays a pipe from the test, its output is collected line by line.
 */
final class ChildJvm {
    final Process process;
    final List<String> output = new CopyOnWriteArrayList<>();

    private ChildJvm(Process process) {
        this.process = process;
        Thread reader = new Thread(this::collect, "child-jvm-output");
        reader.setDaemon(true);
        reader.start();
    }

    static ChildJvm start(Class<?> main, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx256m", "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        try {
            return new ChildJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void collect() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                output.add(line);
            }
        } catch (IOException e) {
            output.add("(output closed: " + e.getMessage() + ")");
        }
    }

    /** Processes whose command line names a file under {@code dir}. */
    static List<ProcessHandle> processesNaming(Path dir) {
        String under = dir.toAbsolutePath() + "/";
        return ProcessHandle.allProcesses().filter(p -> {
            try {
                Path cmdline = Path.of("/proc", Long.toString(p.pid()), "cmdline");
                return new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).contains(under);
            } catch (IOException | UncheckedIOException gone) {
                return false;
            }
        }).toList();
    }

    /** The value after {@code prefix} on the first line that starts with it, if printed yet. */
    String printed(String prefix) {
        return output.stream().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).findFirst()
                .orElse(null);
    }
}
