package io.jfabric.loadtest;

/**
 * What a rig drives: a pair of peers in this process, the measuring side's operations and their completions. An
 * operation is one round trip (a message and its echo, or a one-sided operation and the target's answer), named
 * by a sequence number the rig chooses; at most {@link #window()} are in flight.
 * <p>
 * Data path: {@link #start(long)} and {@link #poll(CompletionHandler)} return a count or {@code -errno}, never
 * throw and never allocate. Threading: one thread drives {@link #start} and {@link #poll}; {@link #abort()} is
 * safe from any thread; the answering side runs on threads of the target's own.
 */
public interface LoadTarget extends AutoCloseable
{
    /**
     * Receives completed operations.
     */
    @FunctionalInterface
    interface CompletionHandler
    {
        /**
         * An operation completed.
         *
         * @param seq         the sequence number given to {@link #start(long)}.
         * @param completedNs {@link System#nanoTime()} when its completion was read.
         */
        void onComplete(long seq, long completedNs);
    }

    /**
     * @return what this target is, for reports ({@code shm tagged}, {@code aeron ipc}).
     */
    String label();

    /**
     * @return message size in bytes.
     */
    int size();

    /**
     * @return the most operations in flight at once (a power of two).
     */
    int window();

    /**
     * Start one operation.
     *
     * @param seq its sequence number; operations start in increasing order, each at most {@link #window()} after
     *            the oldest one not yet completed.
     * @return 1 when started, 0 when the transport is back-pressured (try again), or {@code -errno}.
     */
    int start(long seq);

    /**
     * Read completions (and, with manual progress, run the duty cycle).
     *
     * @param handler called once per completed operation.
     * @return operations completed, or {@code -errno} of a failure.
     */
    int poll(CompletionHandler handler);

    /**
     * Stop the answering side's threads and make later calls fail with {@code -ECANCELED}. Safe from any thread.
     */
    void abort();

    /**
     * Stop the answering side and release every object and file.
     */
    @Override
    void close();
}
