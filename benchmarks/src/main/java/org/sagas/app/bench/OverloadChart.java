package org.sagas.app.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The overload benchmark's picture: three panels (goodput, shed rate, answer p99) against the
 * offered load as a multiple of the capacity found, one line per run. Plain SVG, no library.
 */
final class OverloadChart {
    private static final int W = 300;
    private static final int H = 220;
    private static final int PAD = 45;
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

    private OverloadChart() {}

    static String svg(List<Map<String, Object>> runs) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"11\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
                3 * W, H + 30));
        panel(b, runs, 0, "confirmed orders/s (goodput)", "goodput_per_s", 1.0);
        panel(b, runs, 1, "share of answers shed (503)", "shed_rate", 1.0);
        panel(b, runs, 2, "answer p99 (ms), target 250", "answer_p99_ms", 1.0);
        for (int r = 0; r < runs.size(); r++) {
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>%n", PAD + r * 160,
                    H + 22, COLOURS[r % COLOURS.length], runs.get(r).get("layout")));
        }
        return b.append("</svg>\n").toString();
    }

    @SuppressWarnings("unchecked")
    private static void panel(StringBuilder b, List<Map<String, Object>> runs, int index, String title, String key,
            double scale) {
        int x0 = index * W + PAD;
        int y0 = H - 30;
        int w = W - PAD - 15;
        int h = H - 60;
        double maxX = OverloadBenchmark.MULTIPLES[OverloadBenchmark.MULTIPLES.length - 1];
        double maxY = 0;
        for (Map<String, Object> run : runs) {
            for (Map<String, Object> p : (List<Map<String, Object>>) run.get("phases")) {
                maxY = Math.max(maxY, value(p, key) * scale);
            }
        }
        if (key.equals("answer_p99_ms")) {
            maxY = Math.max(maxY, 250);
        }
        maxY = maxY <= 0 ? 1 : maxY * 1.1;
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"16\" font-weight=\"bold\">%s</text>%n", x0, title));
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", x0, y0,
                x0 + w, y0));
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", x0, y0,
                x0, y0 - h));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", x0 - 4,
                y0 - h + 4, label(maxY)));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>%n", x0 - 4, y0 + 4));
        for (double m : OverloadBenchmark.MULTIPLES) {
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s×</text>%n",
                    x0 + m / maxX * w, y0 + 14, label(m)));
        }
        if (key.equals("answer_p99_ms")) {
            double y = y0 - 250 / maxY * h;
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"grey\""
                    + " stroke-dasharray=\"4\"/>%n", x0, y, x0 + w, y));
        }
        for (int r = 0; r < runs.size(); r++) {
            StringBuilder points = new StringBuilder();
            for (Map<String, Object> p : (List<Map<String, Object>>) runs.get(r).get("phases")) {
                double x = x0 + ((Number) p.get("multiple")).doubleValue() / maxX * w;
                double y = y0 - value(p, key) * scale / maxY * h;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            b.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n",
                    COLOURS[r % COLOURS.length], points.toString().trim()));
        }
    }

    private static double value(Map<String, Object> phase, String key) {
        Object v = phase.get(key);
        return v instanceof Number n ? n.doubleValue() : 0;
    }

    private static String label(double v) {
        return v >= 10 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2g", v);
    }
}
