package org.sagas.peers.saga.flowable;

import java.util.concurrent.Semaphore;
import org.flowable.common.engine.impl.context.Context;
import org.flowable.common.engine.impl.interceptor.AbstractCommandInterceptor;
import org.flowable.common.engine.impl.interceptor.Command;
import org.flowable.common.engine.impl.interceptor.CommandConfig;
import org.flowable.common.engine.impl.interceptor.CommandExecutor;
import org.flowable.common.engine.api.FlowableException;

/**
 * Lets at most {@code pool size - 1} top-level Flowable commands run at once. Flowable's standalone
 * transaction context runs after-commit listeners (the async executor's hint for a new job among
 * them) in a nested command on a second connection while the first is still held; with more
 * threads than connections, every connection ended up held by a command waiting for a second one,
 * and the pool deadlocked. With one connection always left over, a waiting nested command always
 * gets it. Nested commands take no permit. Thread-safe.
 */
final class CommandPermits extends AbstractCommandInterceptor {
    private final Semaphore permits;

    CommandPermits(int poolSize) {
        this.permits = new Semaphore(Math.max(1, poolSize - 1), true);
    }

    @Override
    public <T> T execute(CommandConfig config, Command<T> command, CommandExecutor commandExecutor) {
        if (Context.getCommandContext() != null) {
            return next.execute(config, command, commandExecutor);
        }
        try {
            permits.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FlowableException("interrupted while waiting for a command permit", e);
        }
        try {
            return next.execute(config, command, commandExecutor);
        } finally {
            permits.release();
        }
    }
}
