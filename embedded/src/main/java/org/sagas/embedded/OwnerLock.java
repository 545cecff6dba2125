package org.sagas.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Who owns a server's data directory: an exclusive OS file lock held for as long as the server we
 * started runs. The kernel drops it when our process dies, however it dies, so a lock we can take
 * proves that whatever still runs on the directory was left by an owner that is gone, and may be
 * ended; a lock we cannot take means a live owner, whose servers are never touched. Not
 * thread-safe.
 */
final class OwnerLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private OwnerLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock in {@code file} (created if missing) and writes our pid in it.
     *
     * @throws DataDirectoryInUseException when another process, or another server of this JVM, holds it
     */
    static OwnerLock acquire(Path file, Path directory) {
        FileChannel channel = null;
        try {
            Files.createDirectories(file.getParent());
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock = tryLock(channel);
            if (lock == null) {
                String holder = holder(file);
                channel.close();
                throw new DataDirectoryInUseException(directory, holder);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + "\n")
                    .getBytes(StandardCharsets.UTF_8)), 0);
            return new OwnerLock(channel, lock);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot lock " + file, e);
        }
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null; // held by this JVM: a server of ours still runs there
        }
    }

    private static String holder(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8).strip();
            return text.isEmpty() ? "unknown" : text;
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing was locked through it
            }
        }
    }

    /** Releases the lock; the file stays, its content is stale from now on. */
    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot release the lock on a data directory", e);
        }
    }
}
