/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

/**
 * Negative status codes the rings return on the data path for expected outcomes; they never block and never throw
 * for these. A caller on the OFI data path maps {@link #INSUFFICIENT_CAPACITY} to {@code -EAGAIN} and
 * {@link #ERROR_AVAILABLE} to {@code -EAVAIL}.
 * <p>
 * Threading: constants, safe from any thread.
 */
public final class RingStatus
{
    /**
     * The claim or write does not fit in the free space now; retry after the consumer has made progress.
     */
    public static final int INSUFFICIENT_CAPACITY = -2;

    /**
     * A completion read stopped at an error entry at the head without consuming anything; read it with
     * {@code readError}.
     */
    public static final int ERROR_AVAILABLE = -3;

    private RingStatus()
    {
    }
}
