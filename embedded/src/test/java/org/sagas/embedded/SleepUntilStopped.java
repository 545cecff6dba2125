package org.sagas.embedded;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A child's main that runs until its JVM is stopped; its shutdown hook writes {@code args[0]}. */
public final class SleepUntilStopped {
    private SleepUntilStopped() {}

    public static void main(String[] args) throws InterruptedException {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Files.writeString(Path.of(args[0]), "stopped in order\n");
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }));
        System.out.println("running");
        Thread.currentThread().join(); // until the JVM exits
    }
}
