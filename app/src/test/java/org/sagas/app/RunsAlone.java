package org.sagas.app;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that measures time, runs the product with production timings, or starves it of CPU
 * on purpose, so it cannot share the cores with another test JVM: Failsafe runs these one at a time
 * after the other integration tests, which run in parallel forks (app/pom.xml; docs/architecture.md,
 * "Tests").
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(RunsAlone.TAG)
@interface RunsAlone {
    String TAG = "runs-alone";
}
