package org.sagas.embedded;

import java.nio.file.Path;

/**
 * A child's main standing in for the product: starts PostgreSQL on {@code args[0]}, creates
 * database {@code kept}, prints the postmaster's pid and runs until it is killed.
 */
public final class OwnPostgres {
    private OwnPostgres() {}

    public static void main(String[] args) throws InterruptedException {
        EmbeddedPostgresServer server = EmbeddedPostgresServer.start(Path.of(args[0]), 0);
        server.createDatabase("kept");
        System.out.println("postmaster " + server.pid());
        Thread.currentThread().join(); // until killed: never closes the server
    }
}
