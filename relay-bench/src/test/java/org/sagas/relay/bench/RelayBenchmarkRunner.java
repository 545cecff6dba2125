package org.sagas.relay.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.util.Map;
import org.sagas.migrations.Migrations;
import org.sagas.testkit.Infrastructure;

/**
 * Runs {@link RelayBenchmark} against the test infrastructure (embedded PostgreSQL and Kafka, or
 * Testcontainers): {@code RelayBenchmarkRunner [resultFile]}, default
 * {@code target/relay-benchmark.json}. Also run by {@code RelayBenchmarkIT} with
 * {@code -Drelay.bench=true}.
 */
public final class RelayBenchmarkRunner {
    private RelayBenchmarkRunner() {}

    public static void main(String[] args) {
        Path result = Path.of(args.length > 0 ? args[0] : "target/relay-benchmark.json");
        run(result, RelayBenchmark.Options.defaults());
        System.exit(0);
    }

    static Map<String, Object> run(Path resultFile, RelayBenchmark.Options options) {
        Infrastructure infra = Infrastructure.get();
        String database = "relaybench_" + ProcessHandle.current().pid() + "_" + System.currentTimeMillis() % 100_000;
        try (HikariDataSource dataSource = infra.newDatabase(database, 8)) {
            Migrations.apply(dataSource);
            return RelayBenchmark.run(dataSource, infra.bootstrapServers(), System.out, resultFile, options);
        }
    }
}
