package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The repository explains itself: no source or document cites a file outside it (the design lives
 * in docs/design.md) or a numbered issue of a tracker a reader may not have (the reason is written
 * out instead). Plain JUnit: it reads the files of the checkout the build runs in.
 */
class RepositoryStandsAloneTest {

    /** A path out of the repository, or the design document that used to live beside it. */
    private static final List<Pattern> OUTSIDE = List.of(
            Pattern.compile("\\.\\./shared\\b"),
            Pattern.compile("/work/shared\\b"),
            Pattern.compile("\\bDESIGN\\.md"));

    /**
     * "issue 12", "Issue #15", "issues 11 and 14", "ticket 3", "pull request #4", "GH-7". This file
     * is not scanned: its examples would be found.
     */
    private static final Pattern NUMBERED_WORD = Pattern.compile(
            "\\b(?:issues?|tickets?|pull requests?)\\s*(?:no\\.?\\s*)?#?\\d+|\\bGH-\\d+",
            Pattern.CASE_INSENSITIVE);

    /**
     * A bare "#22": a number right after '#', not inside a word, an entity, a path, a shell
     * variable or a quoted value. Colours ("#1f77b4", "#333333") do not match: the number must
     * end at a non-word character, and at most four digits.
     */
    private static final Pattern BARE_NUMBER = Pattern.compile("(?<![\\w&#/\\\\$\"'=:-])#\\d{1,4}(?![\\w-])");

    /** Where colours and selectors make a bare "#N" ordinary: only the worded form is checked. */
    private static final Set<String> MARKUP = Set.of("css", "html", "js", "svg", "json");

    private static final Set<String> TEXT = Set.of("java", "md", "yml", "yaml", "sql", "sh", "xml", "json",
            "properties", "html", "js", "css", "txt", "svg", "conf", "cmd");
    private static final Set<String> TEXT_NAMES = Set.of("Dockerfile", "sagas", "run", ".gitignore",
            ".dockerignore");
    private static final Set<String> SKIPPED_DIRS = Set.of("target", ".git", "node_modules");

    /**
     * Applied schema migrations cannot change: Flyway refuses to start on a database whose applied
     * scripts' checksums differ, comments included. Their old section numbers are mapped in
     * docs/design.md ("Section numbers in the migrations"); a new migration is checked like any file.
     */
    private static final Set<String> APPLIED_MIGRATIONS = Set.of("V1__saga_core.sql", "V2__sandbox.sql",
            "V3__outbox_dead_letters.sql", "V4__drop_saga_label_index.sql", "V5__incidents.sql",
            "V6__typed_outcomes.sql", "V7__operator_api.sql", "V8__reconciliation.sql",
            "V9__orders_by_customer.sql", "V10__traceparent.sql", "V11__fewer_rows_per_order.sql",
            "V12__idempotency_keys_per_client.sql", "V13__incidents_that_wait.sql");

    @Test
    void shouldCiteNothingOutsideTheRepositoryNorAnyIssueNumber() throws IOException {
        // Given every source and document file of the repository
        Path root = repositoryRoot();
        List<Path> files = textFiles(root);
        assertThat(files).as("files scanned under " + root).hasSizeGreaterThan(100);

        // When each line is searched for a reference out of the repository or to a numbered issue
        List<String> found = new ArrayList<>();
        for (Path file : files) {
            String text;
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (MalformedInputException e) {
                continue; // not text after all
            }
            boolean markup = MARKUP.contains(extension(file));
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String reference = reference(lines[i], markup);
                if (reference != null) {
                    found.add(root.relativize(file) + ":" + (i + 1) + ": " + reference + "  <- " + lines[i].strip());
                }
            }
        }

        // Then there is none: write the reason, or point at docs/design.md or another file in docs/
        assertThat(found).as("references out of the repository or to issue numbers").isEmpty();
    }

    @Test
    void shouldTellCitationsFromColoursAndMarkup() {
        // Given lines that cite, and lines that only look alike
        // Then each is judged as a reader would
        assertThat(reference("see DESIGN.md section 8a", false)).isNotNull();
        assertThat(reference("[design](../shared/x.md)", false)).isNotNull();
        assertThat(reference("fixed in issue 12 item 2", false)).isNotNull();
        assertThat(reference("Issue 14 gives operators", false)).isNotNull();
        assertThat(reference("(issue #15)", false)).isNotNull();
        assertThat(reference("as reported in issues 11 and 14", false)).isNotNull();
        assertThat(reference("the reconciler (#22) runs", false)).isNotNull();
        assertThat(reference("fill=\\\"#16213a\\\" and color: #333333;", false)).isNull();
        assertThat(reference("COLOURS = {\"#1f77b4\", \"#d62728\"}", false)).isNull();
        assertThat(reference("a { color: #333; }", true)).isNull();
        assertThat(reference("see docs/design.md, \"No saga left behind\"", false)).isNull();
        assertThat(reference("an issue with 3 retries; the issues here", false)).isNull();
        assertThat(reference("echo $#1 args; &#8230;", false)).isNull();
    }

    /** The first reference {@code line} makes, or null. */
    private static String reference(String line, boolean markup) {
        for (Pattern p : OUTSIDE) {
            Matcher m = p.matcher(line);
            if (m.find()) {
                return m.group();
            }
        }
        Matcher worded = NUMBERED_WORD.matcher(line);
        if (worded.find()) {
            return worded.group();
        }
        if (!markup) {
            Matcher bare = BARE_NUMBER.matcher(line);
            if (bare.find()) {
                return bare.group();
            }
        }
        return null;
    }

    /** The checkout's root: the first directory up from the module's that holds mvnw and docs/. */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException("no repository root (mvnw and docs/) above " + Path.of("").toAbsolutePath());
    }

    private static List<Path> textFiles(Path root) throws IOException {
        List<Path> files = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                return !dir.equals(root) && SKIPPED_DIRS.contains(dir.getFileName().toString())
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                String name = file.getFileName().toString();
                boolean text = TEXT.contains(extension(file)) || TEXT_NAMES.contains(name);
                boolean appliedMigration = APPLIED_MIGRATIONS.contains(name)
                        && file.getParent().endsWith(Path.of("db", "migration"));
                boolean thisTest = name.equals(RepositoryStandsAloneTest.class.getSimpleName() + ".java");
                if (attrs.isRegularFile() && text && !appliedMigration && !thisTest) {
                    files.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return files;
    }

    private static String extension(Path file) {
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot <= 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    }
}
