package org.sagas.embedded;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZInputStream;
import org.tukaani.xz.XZOutputStream;

/**
 * Serves zonky's PostgreSQL binaries, made runnable by root.
 *
 * <p>PostgreSQL refuses to run as root, and our CI and sandboxes run as root. When the JVM is
 * root, the archive is repacked once (cached under the temp directory) with {@code initdb} and
 * {@code pg_ctl} replaced by small scripts that hand the data directory to {@code nobody} and
 * drop privileges with {@code setpriv} before running the real binary. Otherwise the archive is
 * served unchanged. Thread-safe.
 */
final class RootSafeBinaryResolver implements PgBinaryResolver {
    private static final Set<String> WRAPPED = Set.of("bin/initdb", "bin/pg_ctl");
    private static final int EXECUTABLE = 0100755;

    static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    @Override
    public InputStream getPgBinary(String system, String machineHardware) throws IOException {
        if (!runningAsRoot()) {
            return DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system, machineHardware);
        }
        Path cached = Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg",
                "sagas-root-" + system + "-" + machineHardware + ".txz");
        synchronized (RootSafeBinaryResolver.class) {
            if (!Files.exists(cached)) {
                repack(system, machineHardware, cached);
            }
        }
        return new BufferedInputStream(Files.newInputStream(cached));
    }

    private static void repack(String system, String hardware, Path target) throws IOException {
        Files.createDirectories(target.getParent());
        Path tmp = Files.createTempFile(target.getParent(), "repack", ".txz");
        try (InputStream original = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system, hardware);
                TarArchiveInputStream in = new TarArchiveInputStream(
                        new XZInputStream(new BufferedInputStream(original)));
                OutputStream file = new BufferedOutputStream(Files.newOutputStream(tmp));
                TarArchiveOutputStream out = new TarArchiveOutputStream(
                        new XZOutputStream(file, new LZMA2Options(0)))) {
            out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            TarArchiveEntry entry;
            while ((entry = in.getNextEntry()) != null) {
                String name = entry.getName().startsWith("./") ? entry.getName().substring(2) : entry.getName();
                if (WRAPPED.contains(name)) {
                    entry.setName(name + ".real");
                    out.putArchiveEntry(entry);
                    in.transferTo(out);
                    out.closeArchiveEntry();
                    writeScript(out, name, wrapper(name.substring("bin/".length())));
                } else {
                    out.putArchiveEntry(entry);
                    in.transferTo(out);
                    out.closeArchiveEntry();
                }
            }
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void writeScript(TarArchiveOutputStream out, String name, String script) throws IOException {
        byte[] bytes = script.getBytes(StandardCharsets.UTF_8);
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setMode(EXECUTABLE);
        entry.setSize(bytes.length);
        out.putArchiveEntry(entry);
        out.write(bytes);
        out.closeArchiveEntry();
    }

    private static String wrapper(String binary) {
        return "#!/bin/sh\n"
                + "# PostgreSQL will not run as root: give the data directory to nobody and drop privileges.\n"
                + "real=\"$(dirname \"$0\")/" + binary + ".real\"\n"
                + "if [ \"$(id -u)\" != 0 ]; then exec \"$real\" \"$@\"; fi\n"
                + "data=''; prev=''\n"
                + "for a in \"$@\"; do [ \"$prev\" = -D ] && data=\"$a\"; prev=\"$a\"; done\n"
                + "[ -n \"$data\" ] && chown -R 65534:65534 \"$data\"\n"
                + "exec setpriv --reuid=65534 --regid=65534 --clear-groups \"$real\" \"$@\"\n";
    }
}
