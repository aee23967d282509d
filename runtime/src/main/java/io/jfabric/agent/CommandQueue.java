package io.jfabric.agent;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;

/**
 * One of a domain's command rings (control, receive, send): application threads claim a command of a given opcode
 * and length, encode it at the returned index (layout: {@link CommandDescriptor}) and commit it; the domain agent
 * reads committed commands in order and may leave one in place ({@code ABORT}) when it cannot take it yet.
 * <p>
 * Two implementations behind this interface, chosen per domain by the system property {@value #PROPERTY}:
 * {@code agrona} ({@link AgronaCommandQueue}, Agrona's {@code ManyToOneRingBuffer}, the default) and {@code slots}
 * ({@link SlotCommandQueue}, {@code io.jfabric.ring.ManyToOneCommandRing} with its controlled drain); see
 * {@code runtime/RUNTIME.md} for the comparison that chose the default.
 * <p>
 * Threading: {@link #tryClaim}, {@link #buffer()} and {@link #commit} are safe for many producer threads;
 * {@link #controlledRead} is for the single consumer (the domain agent); the positions may be read by any thread.
 */
interface CommandQueue
{
    /** System property choosing the implementation: {@code agrona} (default) or {@code slots}. */
    String PROPERTY = "jfabric.agent.commandQueue";

    /**
     * Claim room for a command.
     *
     * @param msgTypeId the command's opcode (positive).
     * @param length    the command's length in bytes.
     * @return the index of the command in {@link #buffer()}, or a negative value when the ring has no room now.
     * @throws IllegalArgumentException when the length exceeds what the ring can ever hold (a programming error).
     */
    int tryClaim(int msgTypeId, int length);

    /**
     * @return the buffer commands are encoded into.
     */
    AtomicBuffer buffer();

    /**
     * Publish a claimed command to the agent (a release store: the agent sees every field written before).
     *
     * @param index from {@link #tryClaim}.
     */
    void commit(int index);

    /**
     * Hand committed commands to a handler in order: {@code CONTINUE} or {@code COMMIT} consumes a command,
     * {@code BREAK} consumes it and stops, {@code ABORT} leaves it in place and stops.
     *
     * @param handler receives (opcode, buffer, index, length) as {@link #tryClaim} was given.
     * @param limit   the most commands to consume.
     * @return commands consumed.
     */
    int controlledRead(ControlledMessageHandler handler, int limit);

    /**
     * @return how far producers have claimed (a snapshot; the unit is the implementation's).
     */
    long producerPosition();

    /**
     * @return how far the agent has consumed (a snapshot, comparable with {@link #producerPosition()}).
     */
    long consumerPosition();

    /**
     * The implementation the system property names.
     *
     * @param capacity bytes of ring (a power of two).
     * @return a new, empty queue.
     * @throws IllegalArgumentException for an unknown implementation name.
     */
    static CommandQueue create(final int capacity)
    {
        final String kind = System.getProperty(PROPERTY, "agrona");
        switch (kind)
        {
            case "agrona":
                return new AgronaCommandQueue(capacity);
            case "slots":
                return new SlotCommandQueue(capacity);
            default:
                throw new IllegalArgumentException(PROPERTY + "=" + kind + " (agrona or slots)");
        }
    }
}
