package org.sagas.app;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sagas.orchestrator.Json;
import org.yaml.snakeyaml.Yaml;

/**
 * The PromQL queries of the operations files (the Grafana dashboard and the Prometheus alert
 * rules) and the metric names each one reads. Stateless.
 */
final class OpsQueries {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path DASHBOARD = ROOT.resolve("ops/grafana/dashboards/sagas.json");
    static final Path ALERTS = ROOT.resolve("ops/prometheus/alerts.yml");

    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
    private static final Pattern GROUPING = Pattern.compile(
            "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.:$])[a-zA-Z_:][\\w:]*");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without",
            "on", "ignoring", "group_left", "group_right", "inf", "nan", "atan2");

    private OpsQueries() {}

    /**
     * The metric names {@code expr} selects: identifiers outside label matchers, strings, ranges
     * and grouping clauses that are not functions, aggregations or keywords.
     */
    static Set<String> metricNames(String expr) {
        String s = STRING.matcher(expr).replaceAll(" ");
        s = s.replaceAll("\\{[^}]*}", " ").replaceAll("\\[[^]]*]", " ").replaceAll("\\$\\{?\\w+}?", " ");
        s = GROUPING.matcher(s).replaceAll(" ");
        Set<String> names = new LinkedHashSet<>();
        Matcher m = IDENTIFIER.matcher(s);
        while (m.find()) {
            String rest = s.substring(m.end()).stripLeading();
            if (!rest.startsWith("(") && !KEYWORDS.contains(m.group().toLowerCase(java.util.Locale.ROOT))) {
                names.add(m.group());
            }
        }
        return names;
    }

    /** Panel title / refId → expression, for every query of the dashboard (rows' panels included). */
    static Map<String, String> dashboard() {
        Map<String, String> queries = new LinkedHashMap<>();
        for (JsonNode panel : panels(readJson(DASHBOARD))) {
            for (JsonNode target : panel.path("targets")) {
                queries.put(panel.path("title").asText() + " / " + target.path("refId").asText(),
                        target.path("expr").asText());
            }
        }
        return queries;
    }

    /** Alert name → expression, for every rule of the alert rules file. */
    static Map<String, String> alerts() {
        Map<String, String> queries = new LinkedHashMap<>();
        for (Map<String, Object> rule : alertRules()) {
            queries.put(String.valueOf(rule.get("alert")), String.valueOf(rule.get("expr")));
        }
        return queries;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> alertRules() {
        List<Map<String, Object>> rules = new ArrayList<>();
        try (Reader reader = Files.newBufferedReader(ALERTS)) {
            Map<String, Object> file = new Yaml().load(reader);
            for (Object group : (List<Object>) file.get("groups")) {
                rules.addAll((List<Map<String, Object>>) ((Map<String, Object>) group).get("rules"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rules;
    }

    static JsonNode readJson(Path path) {
        try {
            return Json.mapper().readTree(path.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every panel, those inside collapsed rows too. */
    static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            all.add(panel);
            panel.path("panels").forEach(all::add);
        }
        return all;
    }
}
