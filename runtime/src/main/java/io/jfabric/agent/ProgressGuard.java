package io.jfabric.agent;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The single-runner guard of a domain with {@code FI_PROGRESS_MANUAL}: application threads that drive progress
 * (CQ and counter reads, {@code ep.progress()}, an immediate tsearch) run the agent's duty cycle inline, and an
 * {@code AgentInvoker} must never run on two threads at once. A thread that finds the guard taken does not wait:
 * the holder is making progress for everyone.
 * <p>
 * Memory ordering: {@link #tryEnter()} is a compare-and-set (a full fence, so the entering thread sees everything
 * the previous holder wrote before its release); {@link #exit()} is a release store. Together they order every
 * duty cycle after the previous one, which keeps the agent's state single-writer across threads.
 * <p>
 * Threading: any number of threads; allocation-free.
 */
public final class ProgressGuard
{
    private final AtomicBoolean taken = new AtomicBoolean();

    /**
     * Take the guard if it is free.
     *
     * @return true when this thread now holds it (and must call {@link #exit()}).
     */
    public boolean tryEnter()
    {
        // Test before the CAS: a busy guard costs a plain read, not a contended cache line write.
        return !taken.get() && taken.compareAndSet(false, true);
    }

    /**
     * Release the guard (release store: the next holder sees everything written before it).
     */
    public void exit()
    {
        taken.setRelease(false);
    }

    /**
     * @return true when some thread holds the guard (a snapshot, for tests and diagnostics).
     */
    public boolean isTaken()
    {
        return taken.get();
    }
}
