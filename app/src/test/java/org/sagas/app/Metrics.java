package org.sagas.app;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of the API's {@code /metrics}, read as the Prometheus text format. Immutable. */
final class Metrics {
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** One line of the exposition: a sample of a series. */
    record Sample(String name, Map<String, String> labels, double value) {}

    private final String text;
    private final List<Sample> samples;

    private Metrics(String text, List<Sample> samples) {
        this.text = text;
        this.samples = List.copyOf(samples);
    }

    static Metrics parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            int brace = l.indexOf('{');
            int space = l.indexOf(' ');
            Map<String, String> labels = new LinkedHashMap<>();
            String name;
            String rest;
            if (brace >= 0 && brace < space) {
                int close = l.lastIndexOf('}');
                name = l.substring(0, brace);
                Matcher m = LABEL.matcher(l.substring(brace + 1, close));
                while (m.find()) {
                    labels.put(m.group(1), m.group(2));
                }
                rest = l.substring(close + 1).strip();
            } else {
                name = l.substring(0, space);
                rest = l.substring(space + 1).strip();
            }
            samples.add(new Sample(name, labels, Double.parseDouble(rest.split("\\s+")[0])));
        }
        return new Metrics(text, samples);
    }

    /** Whether a series named {@code name} is exposed, with {@code labels} (name, value, ...) among its labels. */
    boolean has(String name, String... labels) {
        return samples.stream().anyMatch(s -> matches(s, name, labels));
    }

    /**
     * The sum of the samples named {@code name} with {@code labels} (name, value, ...) among their
     * labels, so a series the relay tags per instance reads as one.
     *
     * @throws AssertionError if there is none
     */
    double value(String name, String... labels) {
        List<Sample> found = samples.stream().filter(s -> matches(s, name, labels)).toList();
        if (found.isEmpty()) {
            throw new AssertionError("no sample " + name + " " + List.of(labels) + " in /metrics");
        }
        return found.stream().mapToDouble(Sample::value).sum();
    }

    /** The type a {@code # TYPE} line declares for {@code family}, or null. */
    String type(String family) {
        for (String line : text.split("\n")) {
            String[] parts = line.strip().split("\\s+");
            if (parts.length == 4 && parts[0].equals("#") && parts[1].equals("TYPE") && parts[2].equals(family)) {
                return parts[3];
            }
        }
        return null;
    }

    /** Every series name exposed. */
    Set<String> names() {
        Set<String> names = new HashSet<>();
        samples.forEach(s -> names.add(s.name()));
        return names;
    }

    private static boolean matches(Sample s, String name, String... labels) {
        if (!s.name().equals(name)) {
            return false;
        }
        for (int i = 0; i + 1 < labels.length; i += 2) {
            if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
                return false;
            }
        }
        return true;
    }
}
