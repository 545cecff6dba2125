package org.sagas.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadCpuTest {

    @Test
    void shouldGroupThreadsByTheNamesTheKernelKeeps() {
        assertThat(ThreadCpu.group("api-42")).isEqualTo("api");
        // Kafka's heartbeat threads, cut to 15 characters by the kernel
        assertThat(ThreadCpu.group("kafka-coordinat")).isEqualTo("consumers");
        assertThat(ThreadCpu.group("kafka-producer-")).isEqualTo("producer");
        assertThat(ThreadCpu.group("sagas-reconcile")).isEqualTo("reconciler");
        assertThat(ThreadCpu.group("C1 CompilerThre")).isEqualTo("jit");
        assertThat(ThreadCpu.group("main")).isEqualTo("other");
    }

    @Test
    void shouldCountABusyThreadsCpuInItsGroupBetweenTwoReadings() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux's /proc");
        // Given a reading of this JVM, every group present
        ThreadCpu threads = new ThreadCpu();
        long pid = ProcessHandle.current().pid();
        Map<String, Duration> before = threads.read(pid);
        assertThat(before).containsKeys("api", "consumers", "producer", "relay", "reconciler", "gc", "jit", "other");

        // When a thread named as the API's spins for 300 ms of its own CPU, still alive at the second reading
        Object done = new Object();
        Thread busy = new Thread(() -> {
            var mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long start = mx.getCurrentThreadCpuTime();
            long x = 0;
            while (mx.getCurrentThreadCpuTime() - start < 300_000_000L) {
                x += System.nanoTime() % 7;
            }
            synchronized (done) {
                try {
                    done.wait(10_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            assertThat(x).isNotNegative();
        }, "api-busy-test");
        busy.setDaemon(true);
        busy.start();
        Thread.sleep(100);
        while (busy.getState() == Thread.State.RUNNABLE) {
            Thread.sleep(20);
        }
        Map<String, Duration> used = ThreadCpu.between(before, threads.read(pid));
        synchronized (done) {
            done.notifyAll();
        }

        // Then the API's group used at least most of it (the kernel counts in clock ticks)
        assertThat(used.get("api")).isGreaterThanOrEqualTo(Duration.ofMillis(250));
        assertThat(used.values()).allSatisfy(d -> assertThat(d.isNegative()).isFalse());
    }
}
