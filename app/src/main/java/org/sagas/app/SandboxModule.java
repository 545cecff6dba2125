package org.sagas.app;

/**
 * Whether this installation has the sandbox module, which the production image leaves out
 * (docs/decisions/0031). Names no class of that module, so it loads on any image. Stateless.
 */
final class SandboxModule {
    /** A class of the sandbox module: present exactly when its jar is on the class path. */
    static final String PROBE = "org.sagas.sandbox.SandboxServer";

    private SandboxModule() {}

    /** Whether the sandbox module's classes can be loaded here. */
    static boolean present() {
        try {
            Class.forName(PROBE, false, SandboxModule.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * Checks that role {@code sandbox} can run here.
     *
     * @throws ConfigurationError naming the missing module when this is the production image
     */
    static void require() {
        if (!present()) {
            throw new ConfigurationError("role sandbox needs the sandbox module (sandbox-*.jar on the class path),"
                    + " which the production image leaves out: run it from the image's sandbox build target"
                    + " (docker build --target sandbox) or with ./sagas up");
        }
    }
}
