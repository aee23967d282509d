/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;

/**
 * Receives commands drained from a {@link CommandRing}.
 * <p>
 * Threading: called on the ring's single consumer thread (the domain agent) only.
 */
@FunctionalInterface
public interface CommandHandler
{
    /**
     * Handle one committed command. The body is contiguous and stable for the duration of the call only; copy what
     * must outlive it.
     *
     * @param buffer the ring's buffer.
     * @param offset of the command body in the buffer.
     * @param slots  the command takes; its body is {@link CommandRingDescriptor#bodyLength(int)} bytes.
     */
    void onCommand(AtomicBuffer buffer, int offset, int slots);
}
