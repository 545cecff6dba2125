package org.sagas.orchestrator.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConsoleSessionsTest {
    private static final Operator OLGA = new Operator("olga", Role.OPERATOR);
    private static final Operator VICTOR = new Operator("victor", Role.VIEWER);
    private final MovingClock clock = new MovingClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void shouldOpenSessionsUnderLongRandomIdsThatStandForTheirOperator() {
        ConsoleSessions sessions = sessions(Duration.ofMinutes(30), Duration.ofHours(8), 100);

        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            ids.add(sessions.open(OLGA));
        }

        assertThat(ids).hasSize(50).allSatisfy(id -> assertThat(Base64.getUrlDecoder().decode(id))
                .hasSize(ConsoleSessions.ID_BYTES));
        assertThat(sessions.use(ids.iterator().next())).hasValueSatisfying(a -> {
            assertThat(a.operator()).isEqualTo(OLGA);
            assertThat(a.cookieMaxAge()).isEqualTo(Duration.ofMinutes(30));
        });
        assertThat(sessions.use("not-a-session")).isEmpty();
        assertThat(sessions.use(null)).isEmpty();
    }

    @Test
    void shouldEndASessionWhenSignedOut() {
        ConsoleSessions sessions = sessions(Duration.ofMinutes(30), Duration.ofHours(8), 100);
        String id = sessions.open(VICTOR);

        assertThat(sessions.close(id)).isTrue();

        assertThat(sessions.use(id)).isEmpty();
        assertThat(sessions.close(id)).isFalse();
        assertThat(ended("signed_out")).isEqualTo(1);
    }

    @Test
    void shouldEndASessionUnusedForTheIdleTimeButKeepOneInUse() {
        ConsoleSessions sessions = sessions(Duration.ofMinutes(30), Duration.ofHours(8), 100);
        String idle = sessions.open(VICTOR);
        String used = sessions.open(OLGA);

        for (int i = 0; i < 4; i++) {
            clock.advance(Duration.ofMinutes(20));
            assertThat(sessions.use(used)).isPresent();
        }

        assertThat(sessions.use(idle)).isEmpty();
        assertThat(ended("idle")).isEqualTo(1);
        assertThat(sessions.size()).isEqualTo(1);
    }

    @Test
    void shouldEndASessionAtItsMaximumAgeAndShortenItsCookieBefore() {
        ConsoleSessions sessions = sessions(Duration.ofMinutes(30), Duration.ofHours(1), 100);
        String id = sessions.open(OLGA);

        clock.advance(Duration.ofMinutes(25));
        sessions.use(id);
        clock.advance(Duration.ofMinutes(25));
        var nearEnd = sessions.use(id);
        clock.advance(Duration.ofMinutes(10));

        assertThat(nearEnd).hasValueSatisfying(a -> assertThat(a.cookieMaxAge()).isEqualTo(Duration.ofMinutes(10)));
        assertThat(sessions.use(id)).isEmpty();
        assertThat(ended("expired")).isEqualTo(1);
    }

    @Test
    void shouldEvictTheLeastRecentlyUsedSessionWhenTheTableIsFull() {
        ConsoleSessions sessions = sessions(Duration.ofMinutes(30), Duration.ofHours(8), 2);
        String first = sessions.open(OLGA);
        String second = sessions.open(VICTOR);
        sessions.use(first);

        String third = sessions.open(OLGA);

        assertThat(sessions.use(second)).isEmpty();
        assertThat(sessions.use(first)).isPresent();
        assertThat(sessions.use(third)).isPresent();
        assertThat(sessions.size()).isEqualTo(2);
        assertThat(ended("evicted")).isEqualTo(1);
        assertThat(registry.get(ConsoleSessions.HELD).gauge().value()).isEqualTo(2);
    }

    private ConsoleSessions sessions(Duration idle, Duration maxAge, int max) {
        return new ConsoleSessions(new SessionPolicy(idle, maxAge, max, false), clock, registry);
    }

    private double ended(String reason) {
        var counter = registry.find(ConsoleSessions.ENDED).tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    /** A clock the test moves. */
    private static final class MovingClock extends Clock {
        private Instant now = Instant.parse("2026-12-01T10:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
