package org.sagas.reconciler.internal;

/** Orders the participants' feed cursors ({@code <transaction id>.<sequence>}, both unsigned). */
final class Cursors {
    private Cursors() {}

    static int compare(String a, String b) {
        long[] x = parse(a);
        long[] y = parse(b);
        int byXid = Long.compareUnsigned(x[0], y[0]);
        return byXid != 0 ? byXid : Long.compareUnsigned(x[1], y[1]);
    }

    private static long[] parse(String cursor) {
        int dot = cursor == null ? -1 : cursor.indexOf('.');
        if (dot < 0) {
            throw new IllegalArgumentException("not a feed cursor: " + cursor);
        }
        return new long[] {Long.parseUnsignedLong(cursor.substring(0, dot)),
            Long.parseUnsignedLong(cursor.substring(dot + 1))};
    }
}
