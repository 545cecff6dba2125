package org.sagas.app;

import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.sagas.testkit.TestInfra;

/**
 * What the game-day classes share: the one product of the test JVM, made healthy before and after
 * each test (with the class's settings, if it has some), and back on its defaults after the class.
 */
abstract class GameDayLifecycle {
    static TestProduct product;
    static String bootstrap;

    @BeforeAll
    static void startProduct(TestInfra infra) {
        product = TestProduct.shared(infra);
        bootstrap = infra.bootstrapServers();
    }

    /** The settings every test of the class runs with; null when each test sets its own. */
    Map<String, String> settings() {
        return null;
    }

    @BeforeEach
    void healthyBefore() {
        if (settings() != null) {
            product.ensure(settings());
        }
        product.healthy();
    }

    @AfterEach
    void healthyAfter() {
        product.healthy();
    }

    @AfterAll
    static void restoreDefaults() {
        if (product != null) {
            product.defaults();
            product.healthy();
        }
    }
}
