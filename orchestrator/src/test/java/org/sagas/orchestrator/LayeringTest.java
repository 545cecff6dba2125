package org.sagas.orchestrator;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The orchestrator's packages are layered as docs/architecture.md draws them, checked on the
 * compiled classes (imports and fully qualified names alike): no package reaches one above it, and
 * the shared ones (config, lifecycle, messaging, tracing, the root's {@code Json}) reach none of the
 * layers. A change that imports against the direction fails here, naming the offending access.
 */
class LayeringTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.sagas.orchestrator");

    @Test
    void shouldKeepEveryPackageFromReachingALayerAboveIt() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("admin").definedBy("org.sagas.orchestrator.admin..")
                .layer("http").definedBy("org.sagas.orchestrator.http..")
                .layer("ordering").definedBy("org.sagas.orchestrator.ordering..")
                .layer("saga").definedBy("org.sagas.orchestrator.saga..")
                .layer("persistence").definedBy("org.sagas.orchestrator.persistence..")
                .layer("resilience").definedBy("org.sagas.orchestrator.resilience..")
                .layer("shared").definedBy("org.sagas.orchestrator", "org.sagas.orchestrator.config..",
                        "org.sagas.orchestrator.lifecycle..", "org.sagas.orchestrator.messaging..",
                        "org.sagas.orchestrator.tracing..")
                .whereLayer("admin").mayNotBeAccessedByAnyLayer()
                .whereLayer("http").mayOnlyBeAccessedByLayers("admin")
                .whereLayer("ordering").mayOnlyBeAccessedByLayers("http", "admin")
                .whereLayer("saga").mayOnlyBeAccessedByLayers("ordering", "http", "admin")
                .whereLayer("persistence").mayOnlyBeAccessedByLayers("saga", "ordering", "http", "admin")
                .whereLayer("resilience").mayOnlyBeAccessedByLayers("saga", "ordering", "http", "admin")
                .check(MAIN);
    }

    @Test
    void shouldHaveNoCycleBetweenPackages() {
        slices().matching("org.sagas.orchestrator.(*)..").should().beFreeOfCycles().check(MAIN);
    }
}
