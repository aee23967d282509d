/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;

/**
 * Receives completion entries read from a {@link CompletionRing}; decode them with a {@link CompletionFlyweight}
 * created once and wrapped per entry.
 * <p>
 * Threading: called on the reading thread; the entry is stable for the duration of the call only.
 */
@FunctionalInterface
public interface CompletionHandler
{
    /**
     * Handle one completion entry.
     *
     * @param buffer the ring's buffer.
     * @param offset of the entry ({@link CompletionRingDescriptor#ENTRY_LENGTH} bytes).
     */
    void onCompletion(AtomicBuffer buffer, int offset);
}
