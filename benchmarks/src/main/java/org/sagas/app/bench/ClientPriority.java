package org.sagas.app.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The load client's CPU priority. On a machine whose few cores the product saturates, a client
 * at the same priority waits for a core as long as the product's own threads do, and its figures
 * then hold its own queueing: measured at three times capacity on two cores, answer p99 1.7-1.8 s
 * at the same priority against 0.2 s with the client at nice -10. A shop's clients do not share
 * the product's cores, so a benchmark raises its client's priority where it may (root), and says
 * when it could not. Every thread of this process is set (Linux sets niceness per thread); a
 * process started afterwards inherits it, so set it back before starting the product.
 */
public final class ClientPriority {
    private ClientPriority() {}

    /** Sets every thread of this process to {@code nice}; false when that was not allowed. */
    public static boolean set(int nice) {
        List<String> command = new ArrayList<>(List.of("renice", "-n", Integer.toString(nice), "-p"));
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                command.add(task.getFileName().toString());
            }
            Process renice = new ProcessBuilder(command).redirectErrorStream(true).start();
            renice.getInputStream().readAllBytes();
            return renice.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
