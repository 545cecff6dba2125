package org.sagas.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class a real PostgreSQL database of its own and a real Kafka broker: declare a
 * {@link TestInfra} parameter on a constructor, lifecycle method or test method.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(InfrastructureExtension.class)
public @interface RealInfrastructure {}
