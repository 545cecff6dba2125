package org.sagas.testkit;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts the shared {@link Infrastructure} once per JVM and gives each test class its own database
 * and its own topic-name prefix, so classes never see each other's rows or records.
 */
public final class InfrastructureExtension implements BeforeAllCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(InfrastructureExtension.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    @Override
    public void beforeAll(ExtensionContext context) {
        infra(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestInfra.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return infra(context);
    }

    private static TestInfra infra(ExtensionContext context) {
        Class<?> testClass = context.getRequiredTestClass();
        ExtensionContext.Store store = context.getRoot().getStore(NS);
        return store.getOrComputeIfAbsent(testClass.getName(), name -> forTestClass(testClass), TestInfra.class);
    }

    /**
     * A database of its own for {@code testClass} on the shared infrastructure, for test engines
     * other than Jupiter (jqwik properties) that cannot use this extension. The caller closes it.
     */
    public static TestInfra forTestClass(Class<?> testClass) {
        String simple = testClass.getSimpleName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        String id = simple.substring(0, Math.min(40, simple.length())) + "_" + ProcessHandle.current().pid()
                + "_" + SEQUENCE.incrementAndGet();
        Infrastructure shared = Infrastructure.get();
        shared.createDatabase(id);
        return new TestInfra(shared, id);
    }
}
