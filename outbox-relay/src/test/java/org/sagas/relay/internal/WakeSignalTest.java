package org.sagas.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WakeSignalTest {

    @Test
    void shouldReturnAtOnceWhenSignalledBeforeWaiting() {
        WakeSignal wake = new WakeSignal();
        wake.signal();
        long started = System.nanoTime();
        wake.await(TimeUnit.SECONDS.toNanos(10));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void shouldWakeAWaitingThread() throws Exception {
        WakeSignal wake = new WakeSignal();
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch woken = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            waiting.countDown();
            wake.await(TimeUnit.SECONDS.toNanos(30));
            woken.countDown();
        });
        waiter.start();
        waiting.await();
        wake.signal();
        assertThat(woken.await(5, TimeUnit.SECONDS)).isTrue();
        waiter.join();
    }

    @Test
    void shouldConsumeTheSignalSoTheNextWaitTimesOut() {
        WakeSignal wake = new WakeSignal();
        wake.signal();
        wake.signal();
        assertThat(wake.await(TimeUnit.SECONDS.toNanos(10))).as("woken").isTrue();
        long started = System.nanoTime();
        assertThat(wake.await(TimeUnit.MILLISECONDS.toNanos(20))).as("woken").isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(19));
    }

    @Test
    void shouldShowASignalSentAfterTheWaitWithoutConsumingIt() {
        WakeSignal wake = new WakeSignal();
        assertThat(wake.await(TimeUnit.MILLISECONDS.toNanos(1))).as("woken").isFalse();
        assertThat(wake.pending()).isFalse();
        wake.signal();
        assertThat(wake.pending()).isTrue();
        assertThat(wake.pending()).as("still there").isTrue();
        assertThat(wake.await(TimeUnit.SECONDS.toNanos(10))).as("woken").isTrue();
        assertThat(wake.pending()).isFalse();
    }
}
