package org.sagas.app.warmup;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.function.Supplier;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source for dry runs of real code: inside {@link #dryRun}, every connection it hands out
 * on that thread is the one pooled connection of the run, in one database transaction that is
 * rolled back at the end. The code under it commits as usual; its commits do nothing, so each
 * "transaction" sees the previous ones' rows, and nothing it wrote is ever visible to anyone else.
 * Outside {@link #dryRun} it hands out nothing. Thread-safe: each thread has its own run.
 */
final class RollbackOnlyDataSource implements DataSource {
    private final DataSource pool;
    private final ThreadLocal<Connection> run = new ThreadLocal<>();

    RollbackOnlyDataSource(DataSource pool) {
        this.pool = pool;
    }

    /** Runs {@code work} on one connection of the pool, in one transaction, then rolls it back. */
    <T> T dryRun(Supplier<T> work) throws SQLException {
        if (run.get() != null) {
            throw new IllegalStateException("dry runs do not nest");
        }
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            run.set(connection);
            try {
                return work.get();
            } finally {
                run.remove();
                connection.rollback();
            }
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = run.get();
        if (connection == null) {
            throw new SQLException("no dry run on this thread: this data source writes nothing outside one");
        }
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                new NeverCommits(connection));
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    /**
     * The run's connection as the code under test sees it: its own autocommit flag (so a data
     * access library's transaction bookkeeping holds), commits and closes that do nothing, and
     * everything else passed through. A rollback is real: the run fails from there on, as it
     * would have.
     */
    private static final class NeverCommits implements InvocationHandler {
        private final Connection connection;
        private boolean autoCommit = true;

        NeverCommits(Connection connection) {
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "commit":
                case "close":
                    return null;
                case "setAutoCommit":
                    autoCommit = (Boolean) args[0];
                    return null;
                case "getAutoCommit":
                    return autoCommit;
                case "isClosed":
                    return false;
                default:
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
            }
        }
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        // nothing is logged through it
    }

    @Override
    public void setLoginTimeout(int seconds) {
        // the pool's own applies
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no java.util.logging here");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper of " + iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
