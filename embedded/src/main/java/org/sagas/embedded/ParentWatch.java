package org.sagas.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.Arrays;

/**
 * The entry point of a child JVM that must not outlive the JVM that started it: runs another
 * class's {@code main} and exits when its standard input ends.
 *
 * <p>The parent keeps the write end of the child's stdin pipe open and never writes to it. The
 * kernel closes it when the parent dies, however it dies ({@code kill -9} included), so the child
 * reads end-of-file and exits through {@link System#exit} (the broker's own shutdown hook stops it
 * in order). If the shutdown hangs, the JVM is halted after {@link #SHUTDOWN_BOUND}. Usage:
 * {@code java -cp … org.sagas.embedded.ParentWatch <main class> <its arguments…>}.
 */
public final class ParentWatch {
    /** Longest orderly shutdown after the parent is gone, before the child JVM is halted. */
    static final Duration SHUTDOWN_BOUND = Duration.ofSeconds(30);

    private ParentWatch() {}

    public static void main(String[] args) throws Throwable {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: ParentWatch <main class> [arguments...]");
        }
        Thread watch = new Thread(() -> exitWhenEnded(System.in), "parent-watch");
        watch.setDaemon(true);
        watch.start();
        MethodHandle main = MethodHandles.publicLookup().findStatic(Class.forName(args[0]), "main",
                MethodType.methodType(void.class, String[].class));
        main.invoke((Object) Arrays.copyOfRange(args, 1, args.length));
    }

    private static void exitWhenEnded(InputStream parentPipe) {
        try {
            while (parentPipe.read() != -1) {
                // the parent never writes: anything read is ignored
            }
        } catch (IOException e) {
            // a broken pipe means the same as end-of-file: the parent is gone
        }
        System.err.println("parent process gone: stopping (halt after " + SHUTDOWN_BOUND.toSeconds() + " s)");
        Thread halt = new Thread(() -> {
            try {
                Thread.sleep(SHUTDOWN_BOUND.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Runtime.getRuntime().halt(1);
        }, "parent-watch-halt");
        halt.setDaemon(true);
        halt.start();
        System.exit(0);
    }
}
