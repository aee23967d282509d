package io.jfabric.spi;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * Where a transport allocates counters of its own (ring-full retries, peers seen dead, ...) beside the runtime's
 * per-domain counters, in the process's counters file that another process can read ({@code io.jfabric.stat}).
 * The runtime passes one to {@link DomainTransport#registerCounters} when the domain opens and frees every counter
 * allocated through it when the domain closes: a transport never frees them itself.
 * <p>
 * Threading: {@link #newCounter} is a control-path call, thread-safe. A counter is then updated by one thread (the
 * domain agent's, through {@code incrementRelease}/{@code setRelease}) or, when several threads update it, with
 * the atomic {@code increment}/{@code getAndAdd}.
 */
@FunctionalInterface
public interface TransportCounters
{
    /** Allocates nothing: counters over private memory that no reader sees (for transports used without a domain). */
    TransportCounters NONE = (name) -> new AtomicCounter(
        new org.agrona.concurrent.UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(128)), 0);

    /**
     * Allocate a counter labelled {@code <name>: <provider> domain=<domain> pid=<pid> id=<domain id>}.
     *
     * @param name what it counts, e.g. {@code "shm ring-full retries"}.
     * @return the counter, at 0.
     */
    AtomicCounter newCounter(String name);
}
