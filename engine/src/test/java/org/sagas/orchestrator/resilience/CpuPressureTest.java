package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CpuPressureTest {
    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private Path pressure(long someTotal) throws Exception {
        Path file = dir.resolve("cpu.pressure");
        Files.writeString(file, "some avg10=1.00 avg60=2.00 avg300=3.00 total=" + someTotal
                + "\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=77\n");
        return file;
    }

    @Test
    void shouldReadTheSomeLinesTotal() throws Exception {
        assertThat(CpuPressure.read(pressure(7651486832L))).isEqualTo(7651486832L);
    }

    @Test
    void shouldKnowNothingOfAFileItCannotRead() throws Exception {
        Path garbled = dir.resolve("garbled");
        Files.writeString(garbled, "some avg10=1.00\n");
        assertThat(CpuPressure.read(garbled)).isEqualTo(-1);
        assertThat(CpuPressure.read(dir.resolve("absent"))).isEqualTo(-1);
        CpuPressure none = new CpuPressure(null, now::get);
        assertThat(none.heldUp(none.mark(), 0.5)).isFalse();
    }

    @Test
    void shouldTellWhetherTasksWaitedForACoreForTheShareOfTheTimeAsked() throws Exception {
        // Given a reading at a moment
        Path file = pressure(5_000);
        CpuPressure cpu = new CpuPressure(file, now::get);
        CpuPressure.Mark start = cpu.mark();

        // When 300 ms pass, 100 of them with a task waiting for a core
        now.addAndGet(300_000_000L);
        pressure(105_000);

        // Then a third of the time was held up: more than a quarter, less than a half
        assertThat(cpu.heldUp(start, 0.25)).isTrue();
        assertThat(cpu.heldUp(start, 0.5)).isFalse();
    }

    @Test
    void shouldShareOneReadingForTwentyMilliseconds() throws Exception {
        // Given a reading
        Path file = pressure(5_000);
        CpuPressure cpu = new CpuPressure(file, now::get);
        CpuPressure.Mark first = cpu.mark();

        // When the file moves on within 20 ms, then after
        pressure(9_000);
        now.addAndGet(10_000_000L);
        CpuPressure.Mark shared = cpu.mark();
        now.addAndGet(CpuPressure.SHARED_FOR_NANOS);
        CpuPressure.Mark fresh = cpu.mark();

        // Then the first mark serves until it is 20 ms old
        assertThat(shared).isEqualTo(first);
        assertThat(fresh.stallMicros()).isEqualTo(9_000);
    }
}
