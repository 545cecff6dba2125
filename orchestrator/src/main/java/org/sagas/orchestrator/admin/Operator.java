package org.sagas.orchestrator.admin;

/** Who calls the operator API: the name and role of the token presented. */
public record Operator(String name, Role role) {

    public boolean mayWrite() {
        return role == Role.OPERATOR;
    }
}
