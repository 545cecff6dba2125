package org.sagas.orchestrator.ordering;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The one definition of what a valid order is made of, shared by the API's validation and the
 * participants (the sandbox inventory and payment provider, the payment worker), so that a
 * value the API accepts is never refused downstream (docs/participants.md, "Accept what the orders API accepts"). Lengths count
 * Unicode code points (as PostgreSQL's {@code length()} does), never UTF-16 units. Stateless.
 */
public final class Limits {
    /** Longest SKU, in code points. */
    public static final int MAX_SKU = 64;
    /** Longest customer id, in code points. */
    public static final int MAX_CUSTOMER_ID = 64;
    /** Longest idempotency key (the API's header and every participant key), in code points. */
    public static final int MAX_KEY = 255;
    /** Most lines an order may have. */
    public static final int MAX_LINES = 100;
    /** Smallest quantity on one line. */
    public static final int MIN_QUANTITY = 1;
    /** Largest quantity on one line. */
    public static final int MAX_QUANTITY = 10_000;
    /** Smallest unit price, in cents (free lines are allowed). */
    public static final long MIN_UNIT_PRICE_CENTS = 0;
    /** Largest unit price, in cents. */
    public static final long MAX_UNIT_PRICE_CENTS = 1_000_000_000L;
    /** Longest order id a participant takes, in code points (the orchestrator sends UUIDs). */
    public static final int MAX_ORDER_ID = 100;
    /** A currency: three capital letters (ISO 4217), as a whole-string regular expression. */
    public static final String CURRENCY_PATTERN = "^[A-Z]{3}$";

    /**
     * The API's Idempotency-Key: visible ASCII, as a whole-string regular expression (stored, logged
     * and echoed in problems). Every such key passes {@link #textProblem}, so participants take it.
     */
    public static final String API_KEY_PATTERN = "^[!-~]+$";

    private static final Pattern CURRENCY = Pattern.compile(CURRENCY_PATTERN);
    private static final Pattern API_KEY = Pattern.compile(API_KEY_PATTERN);

    private Limits() {}

    /** Whether {@code text} is a currency code as {@link #CURRENCY_PATTERN} defines it. */
    public static boolean isCurrency(String text) {
        return text != null && CURRENCY.matcher(text).matches();
    }

    /** Whether {@code text} holds only the characters {@link #API_KEY_PATTERN} allows (length aside). */
    public static boolean isApiKeyText(String text) {
        return text != null && API_KEY.matcher(text).matches();
    }

    /** The length of {@code text} in code points. */
    public static int length(String text) {
        return text.codePointCount(0, text.length());
    }

    /**
     * What is wrong with {@code text} as a value of at most {@code max} code points of printable
     * characters (no control, format, unassigned or lone surrogate characters, not blank), if
     * anything; the message names no field, callers do.
     */
    public static Optional<String> textProblem(String text, int max) {
        if (text == null) {
            return Optional.of("must be a string of 1 to " + max + " printable characters");
        }
        int length = length(text);
        if (length < 1 || length > max) {
            return Optional.of("must be 1 to " + max + " characters long, got " + length);
        }
        if (text.isBlank() || text.codePoints().anyMatch(Limits::unprintable)) {
            return Optional.of("must contain printable characters only");
        }
        return Optional.empty();
    }

    /** What an identifier (customer id, SKU) may hold, for error messages. */
    public static String identifierRule(int max) {
        return "must be a string of 1 to " + max + " letters, digits and - _ . : @ / # +";
    }

    /**
     * What is wrong with {@code text} as an identifier of at most {@code max} code points, if
     * anything. Identifiers are letters and digits (any script, precomposed) and
     * {@code - _ . : @ / # +}: no spaces, controls, NUL, format characters (RTL marks, zero-width
     * joiners), combining marks, lone surrogates, symbols or emoji. They are stored, logged, sent to
     * participants and compared byte for byte: two spellings that look alike must not be two
     * customers. Every identifier passes {@link #textProblem}, so a participant that checks that
     * accepts whatever the API accepted.
     */
    public static Optional<String> identifierProblem(String text, int max) {
        Optional<String> text0 = textProblem(text, max);
        if (text0.isPresent()) {
            return text0;
        }
        if (!text.codePoints().allMatch(c -> Character.isLetterOrDigit(c) || "-_.:@/#+".indexOf(c) >= 0)) {
            return Optional.of(identifierRule(max));
        }
        return Optional.empty();
    }

    private static boolean unprintable(int c) {
        return Character.isISOControl(c) || !Character.isDefined(c)
                || Character.getType(c) == Character.SURROGATE || Character.getType(c) == Character.FORMAT;
    }
}
