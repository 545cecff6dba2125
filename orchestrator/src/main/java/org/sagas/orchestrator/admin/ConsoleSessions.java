package org.sagas.orchestrator.admin;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's sign-ins, held in this process's memory: signing in with a token opens a session
 * under a random id of {@value #ID_BYTES} bytes from {@link SecureRandom}, which is all the
 * browser's cookie carries; the session stands for the token's operator until it is signed out,
 * unused for {@link SessionPolicy#idle()}, older than {@link SessionPolicy#maxAge()}, or evicted
 * (least recently used first) to keep at most {@link SessionPolicy#maxSessions()}. Ids are kept
 * only as their SHA-256, so the table holds nothing a browser could present. A restart ends
 * every session (operators sign in again). Each ending is counted in {@value #ENDED}{@code
 * {reason}}; the sessions held are the gauge {@value #HELD}. Thread-safe.
 */
final class ConsoleSessions {
    static final int ID_BYTES = 32;
    static final String HELD = "saga.admin.console.sessions";
    static final String ENDED = "saga.admin.console.sessions.ended";
    private static final Logger log = LoggerFactory.getLogger(ConsoleSessions.class);

    /** Why a session ended. */
    enum End { SIGNED_OUT, IDLE, EXPIRED, EVICTED }

    /** A session in use: whose it is, and how long its cookie may live from now. */
    record Active(Operator operator, Duration cookieMaxAge) {}

    private record Session(Operator operator, Instant openedAt, Instant usedAt) {}

    private final SessionPolicy policy;
    private final Clock clock;
    private final MeterRegistry registry;
    private final SecureRandom random = new SecureRandom();
    /** By digest of the id, least recently used first. */
    private final LinkedHashMap<String, Session> sessions = new LinkedHashMap<>(16, 0.75f, true);

    ConsoleSessions(SessionPolicy policy, Clock clock, MeterRegistry registry) {
        this.policy = policy;
        this.clock = clock;
        this.registry = registry;
        Gauge.builder(HELD, this, ConsoleSessions::size).description("console sessions held in memory")
                .register(registry);
    }

    SessionPolicy policy() {
        return policy;
    }

    /** Opens a session for {@code who}; answers its id (URL-safe base64), the cookie's value. */
    String open(Operator who) {
        byte[] bytes = new byte[ID_BYTES];
        random.nextBytes(bytes);
        String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        Instant now = clock.instant();
        synchronized (this) {
            dropIdle(now);
            while (sessions.size() >= policy.maxSessions()) {
                Iterator<Session> eldest = sessions.values().iterator();
                Session evicted = eldest.next();
                eldest.remove();
                ended(End.EVICTED);
                log.warn("console session of {} ended to make room: {} sessions held at most"
                        + " (SAGA_ADMIN_SESSIONS)", evicted.operator().name(), policy.maxSessions());
            }
            sessions.put(digest(id), new Session(who, now, now));
        }
        return id;
    }

    /** The session {@code id} names, renewed, or empty when there is none (any more). */
    Optional<Active> use(String id) {
        if (id == null || id.isEmpty()) {
            return Optional.empty();
        }
        String key = digest(id);
        Instant now = clock.instant();
        synchronized (this) {
            dropIdle(now);
            Session s = sessions.get(key);
            if (s == null) {
                return Optional.empty();
            }
            Instant end = s.openedAt().plus(policy.maxAge());
            if (!now.isBefore(end)) {
                sessions.remove(key);
                ended(End.EXPIRED);
                return Optional.empty();
            }
            sessions.put(key, new Session(s.operator(), s.openedAt(), now));
            Duration left = Duration.between(now, end);
            return Optional.of(new Active(s.operator(), left.compareTo(policy.idle()) < 0 ? left : policy.idle()));
        }
    }

    /** Ends session {@code id} (signing out); false when there was none. */
    boolean close(String id) {
        if (id == null || id.isEmpty()) {
            return false;
        }
        Session s;
        synchronized (this) {
            s = sessions.remove(digest(id));
        }
        if (s != null) {
            ended(End.SIGNED_OUT);
        }
        return s != null;
    }

    synchronized int size() {
        return sessions.size();
    }

    /** Least recently used first: the idle ones are at the head. Holding the lock. */
    private void dropIdle(Instant now) {
        Iterator<Map.Entry<String, Session>> it = sessions.entrySet().iterator();
        while (it.hasNext()) {
            Session s = it.next().getValue();
            if (now.isBefore(s.usedAt().plus(policy.idle()))) {
                return;
            }
            it.remove();
            ended(End.IDLE);
        }
    }

    private void ended(End why) {
        registry.counter(ENDED, "reason", why.name().toLowerCase(Locale.ROOT)).increment();
    }

    private static String digest(String id) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(id.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from this JDK", e);
        }
    }
}
