package org.sagas.orchestrator.resilience;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * How much of a stretch of time runnable tasks spent waiting for a core: Linux's pressure stall
 * information for the CPU, its "some" line (the time at least one runnable task waited), read from
 * the product's own cgroup ({@code /sys/fs/cgroup/cpu.pressure}, in a container) or else the whole
 * machine's ({@code /proc/pressure/cpu}). Where neither can be read (not Linux, or pressure stall
 * information off) there is never any pressure, and calls are judged as they were without it.
 *
 * <p>A reading is shared for {@link #SHARED_FOR_NANOS}, so a busy product reads the file at most
 * fifty times a second, and an idle one not at all. Thread-safe.
 */
final class CpuPressure {
    /** How long one reading of the file serves every attempt that starts. */
    static final long SHARED_FOR_NANOS = 20_000_000L;
    private static final List<Path> FILES = List.of(Path.of("/sys/fs/cgroup/cpu.pressure"),
            Path.of("/proc/pressure/cpu"));
    private static final CpuPressure SYSTEM = new CpuPressure(
            FILES.stream().filter(f -> read(f) >= 0).findFirst().orElse(null), System::nanoTime);

    /** A moment and the stall time counted up to it; {@code stallMicros < 0}: not known. */
    record Mark(long nanos, long stallMicros) {}

    private final Path file;
    private final LongSupplier nanoTime;
    private volatile Mark last = new Mark(0, -1);

    CpuPressure(Path file, LongSupplier nanoTime) {
        this.file = file;
        this.nanoTime = nanoTime;
    }

    /** The product's cgroup's or the machine's; one instance for the process. */
    static CpuPressure system() {
        return SYSTEM;
    }

    /** Never any pressure: calls judged as without pressure stall information. */
    static CpuPressure none() {
        return new CpuPressure(null, System::nanoTime);
    }

    /** Now, as a recent reading tells it (at most {@link #SHARED_FOR_NANOS} old). */
    Mark mark() {
        if (file == null) {
            return last;
        }
        long now = nanoTime.getAsLong();
        Mark seen = last;
        if (seen.stallMicros() >= 0 && now - seen.nanos() < SHARED_FOR_NANOS) {
            return seen;
        }
        Mark fresh = new Mark(now, read(file));
        last = fresh;
        return fresh;
    }

    /**
     * Whether, from {@code since} to now, runnable tasks waited for a core at least {@code share}
     * of the time (0 to 1). False when it is not known.
     */
    boolean heldUp(Mark since, double share) {
        if (file == null || since.stallMicros() < 0) {
            return false;
        }
        Mark now = new Mark(nanoTime.getAsLong(), read(file));
        long elapsedMicros = (now.nanos() - since.nanos()) / 1_000;
        if (now.stallMicros() < 0 || elapsedMicros <= 0) {
            return false;
        }
        last = now;
        return now.stallMicros() - since.stallMicros() >= share * elapsedMicros;
    }

    /** The "some" line's total (microseconds), or -1 if the file cannot be read or parsed. */
    static long read(Path file) {
        try {
            String text = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII);
            int line = text.indexOf("some ");
            int total = line < 0 ? -1 : text.indexOf("total=", line);
            if (total < 0) {
                return -1;
            }
            int end = total + "total=".length();
            int stop = end;
            while (stop < text.length() && Character.isDigit(text.charAt(stop))) {
                stop++;
            }
            return stop == end ? -1 : Long.parseLong(text, end, stop, 10);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
