/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.concurrent.AtomicBuffer;

/**
 * A ring of 64-byte command slots from application threads to one consumer (the domain agent).
 * <p>
 * A producer claims a command of one or more consecutive slots with {@link #tryClaim(int)}, encodes the body into
 * {@link #buffer()} at the returned index and then {@link #commit(int)}s or {@link #abort(int)}s it. The consumer
 * drains committed commands in order with {@link #drain(CommandHandler, int)}; an aborted command is skipped. Commands
 * from one producer thread are drained in the order that thread claimed them.
 * <p>
 * Nothing here blocks or allocates: a claim that does not fit returns {@link RingStatus#INSUFFICIENT_CAPACITY}.
 * <p>
 * Threading: see the implementation: {@link ManyToOneCommandRing} is safe for many producer threads (and processes),
 * {@link OneToOneCommandRing} for one producer thread; both have exactly one consumer thread.
 */
public interface CommandRing
{
    /**
     * Claim a command of consecutive slots.
     *
     * @param slots the command takes, from 1 to {@link #maxCommandSlots()}.
     * @return the offset of the command body in {@link #buffer()} ({@link CommandRingDescriptor#bodyLength(int)}
     * bytes are writable there), or {@link RingStatus#INSUFFICIENT_CAPACITY} if the ring has no room now.
     * @throws IllegalArgumentException if slots is outside [1, {@link #maxCommandSlots()}]; the message names both
     *                                  sizes. This is a programming error: validate sizes on the control path.
     */
    int tryClaim(int slots);

    /**
     * Publish a claimed command to the consumer.
     *
     * @param index returned by {@link #tryClaim(int)} and not yet committed or aborted.
     * @throws IllegalArgumentException if index cannot be a claimed command.
     */
    void commit(int index);

    /**
     * Give up a claimed command; the consumer skips its slots.
     *
     * @param index returned by {@link #tryClaim(int)} and not yet committed or aborted.
     * @throws IllegalArgumentException if index cannot be a claimed command.
     */
    void abort(int index);

    /**
     * Hand committed commands, in order, to a handler; stops at the first command not yet committed.
     *
     * @param handler called once per command.
     * @param limit   the most commands to hand over.
     * @return the number of commands handed over.
     */
    int drain(CommandHandler handler, int limit);

    /**
     * Hand committed commands, in order, to a handler that may leave one in place: a command the handler answers
     * with {@link ControlledCommandHandler.Action#ABORT} is not consumed (its slots stay committed and untouched) and
     * the drain stops; the next drain starts with it. {@link ControlledCommandHandler.Action#BREAK} consumes the
     * command and stops. Stops at the first command not yet committed, as {@link #drain} does.
     *
     * @param handler called once per command handed over.
     * @param limit   the most commands to consume.
     * @return the number of commands consumed (an aborted one does not count).
     */
    int controlledDrain(ControlledCommandHandler handler, int limit);

    /**
     * Slots the producers have claimed since the ring was formatted (the tail); a snapshot.
     *
     * @return the producer position, in slots.
     */
    long producerPosition();

    /**
     * Slots the consumer has consumed or skipped since the ring was formatted (the head); a snapshot. Once it reaches
     * a {@link #producerPosition()} read earlier, every command claimed before that read has been consumed.
     *
     * @return the consumer position, in slots.
     */
    long consumerPosition();

    /**
     * Capacity of the ring.
     *
     * @return the number of 64-byte slots.
     */
    int capacity();

    /**
     * The largest command the ring accepts.
     *
     * @return the most slots one command may take.
     */
    int maxCommandSlots();

    /**
     * The buffer the ring lives in; commands are encoded into it at claimed indices.
     *
     * @return the ring's buffer.
     */
    AtomicBuffer buffer();

    /**
     * Slots claimed and not yet drained; a snapshot, exact only when producers and consumer are quiet.
     *
     * @return the number of slots in use.
     */
    int size();

    /**
     * Check, on the control path, that a command body of the given length fits this ring.
     *
     * @param bodyLength in bytes.
     * @return the number of slots a command of that body length takes.
     * @throws IllegalArgumentException naming the command size and the ring's maximum if it does not fit.
     */
    default int checkCommandLength(final int bodyLength)
    {
        final int slots = CommandRingDescriptor.slotsFor(bodyLength);
        if (slots > maxCommandSlots())
        {
            throw new IllegalArgumentException("command of " + bodyLength + " body bytes (" + slots +
                " slots) exceeds the ring maximum of " + CommandRingDescriptor.bodyLength(maxCommandSlots()) +
                " body bytes (" + maxCommandSlots() + " slots)");
        }
        return slots;
    }
}
