package org.sagas.peers.saga;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads a contender's sagas' final states from its own tables ({@link Contender#finalStates()}),
 * on one connection of the benchmark's own to the contender's database, and counts its queries:
 * each is a transaction on that database, taken off the contender's figures. Not thread-safe.
 */
final class FinalStates implements AutoCloseable {
    /** A saga's final state (null while it runs) and when it got there (epoch ms). */
    record Final(String state, long epochMillis) {}

    private final Connection connection;
    private final String sql;
    private int queries;

    FinalStates(Connection connection, Contender contender) {
        this.connection = connection;
        this.sql = contender.finalStates();
    }

    Map<String, Final> read(Collection<String> orderIds) throws SQLException {
        queries++;
        Map<String, Final> states = new HashMap<>();
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            Array ids = connection.createArrayOf("text", orderIds.toArray());
            s.setArray(1, ids);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    states.put(rs.getString(1), new Final(rs.getString(2), rs.getLong(3)));
                }
            }
        }
        return states;
    }

    /** How many statements this reader has run on the contender's database. */
    int queries() {
        return queries;
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
