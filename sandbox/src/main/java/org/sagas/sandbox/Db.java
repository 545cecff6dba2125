package org.sagas.sandbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Plain JDBC, kept small: a transaction or a single auto-committed connection around some work,
 * and statements with positional parameters. {@link SQLException}s leave as {@link StoreFailure}.
 * Thread-safe (each call borrows its own connection).
 */
final class Db {
    /** Work on a borrowed connection. */
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Maps the current row of a result set. */
    interface Row<T> {
        T map(ResultSet rs) throws SQLException;
    }

    /** A database failure in a sandbox store: the request fails with 500, nothing is committed. */
    static final class StoreFailure extends RuntimeException {
        StoreFailure(SQLException cause) {
            super(cause.getMessage(), cause);
        }
    }

    private final DataSource dataSource;

    Db(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Runs {@code work} in one transaction (read committed): committed if it returns, else rolled back. */
    <T> T inTransaction(Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new StoreFailure(e);
        }
    }

    /** Runs {@code work} on one connection, each statement committed on its own. */
    <T> T withConnection(Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            return work.run(connection);
        } catch (SQLException e) {
            throw new StoreFailure(e);
        }
    }

    /** Executes an INSERT, UPDATE or DELETE; returns the number of rows it touched. */
    static int update(Connection connection, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, parameters)) {
            return statement.executeUpdate();
        }
    }

    /** Every row {@code sql} returns (a SELECT, or a statement with RETURNING). */
    static <T> List<T> query(Connection connection, String sql, Row<T> row, Object... parameters)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, parameters);
                ResultSet rs = statement.executeQuery()) {
            List<T> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(row.map(rs));
            }
            return rows;
        }
    }

    /** The first row {@code sql} returns, if any. */
    static <T> Optional<T> queryFirst(Connection connection, String sql, Row<T> row, Object... parameters)
            throws SQLException {
        return query(connection, sql, row, parameters).stream().findFirst();
    }

    private static PreparedStatement prepare(Connection connection, String sql, Object... parameters)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            return statement;
        } catch (SQLException e) {
            statement.close();
            throw e;
        }
    }
}
