/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;

/**
 * Receives commands drained from a {@link CommandRing} by {@link CommandRing#controlledDrain} and says what becomes
 * of each: consumed, or left in place for a later drain (back-pressure: the consumer cannot take it now, for example
 * because the completion queue it would complete into is full).
 * <p>
 * Threading: called on the ring's single consumer thread (the domain agent) only.
 */
@FunctionalInterface
public interface ControlledCommandHandler
{
    /**
     * What the drain does with the command just handed over.
     */
    enum Action
    {
        /** The command is consumed; the drain goes on. */
        CONTINUE,
        /** The command is consumed; the drain stops after it. */
        BREAK,
        /**
         * The command is not consumed: it stays at the head of the ring, untouched, and the drain stops; the next
         * drain hands it over again. Commands behind it wait too (they keep their order).
         */
        ABORT
    }

    /**
     * Handle one committed command. The body is contiguous and stable for the duration of the call only; copy what
     * must outlive it. A command left in place with {@link Action#ABORT} is handed over again, whole and unchanged.
     *
     * @param buffer the ring's buffer.
     * @param offset of the command body in the buffer.
     * @param slots  the command takes; its body is {@link CommandRingDescriptor#bodyLength(int)} bytes.
     * @return what becomes of the command.
     */
    Action onCommand(AtomicBuffer buffer, int offset, int slots);
}
