package io.jfabric.agent;

import io.jfabric.ring.CommandRingDescriptor;
import io.jfabric.ring.ControlledCommandHandler;
import io.jfabric.ring.ManyToOneCommandRing;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A {@link CommandQueue} on {@code io.jfabric.ring.ManyToOneCommandRing} (64-byte slots, a claim CAS against a head
 * cache, the consumer zeroing only each slot's first 8 bytes) and its controlled drain, which can leave a command in
 * place. Each command body starts with 8 bytes of its own: the opcode and the length, then the command at the index
 * {@link #tryClaim} returns:
 * <pre>
 *   slot body:  opcode (32) | length (32) | command (CommandDescriptor layout) ...
 * </pre>
 * Threading: as {@link CommandQueue}.
 */
final class SlotCommandQueue implements CommandQueue
{
    private static final int PREFIX = 8;
    private static final int LENGTH_OFFSET = 4;

    private final ManyToOneCommandRing ring;
    private final AtomicBuffer buffer;
    private final int maxLength;
    private final ControlledCommandHandler adapter = this::onCommand;
    private ControlledMessageHandler handler;

    /**
     * Create an empty queue.
     *
     * @param capacity bytes of slots (a power of two, at least 64 slots' worth).
     */
    SlotCommandQueue(final int capacity)
    {
        final int slots = capacity / CommandRingDescriptor.SLOT_LENGTH;
        buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(CommandRingDescriptor.requiredLength(slots),
            CommandRingDescriptor.SLOT_LENGTH));
        ring = new ManyToOneCommandRing(buffer);
        maxLength = CommandRingDescriptor.bodyLength(ring.maxCommandSlots()) - PREFIX;
    }

    @Override
    public int tryClaim(final int msgTypeId, final int length)
    {
        if (length < 0 || length > maxLength)
        {
            throw new IllegalArgumentException("command of " + length + " bytes exceeds the ring maximum of " +
                maxLength);
        }
        final int index = ring.tryClaim(CommandRingDescriptor.slotsFor(length + PREFIX));
        if (index < 0)
        {
            return index;
        }
        final AtomicBuffer b = buffer;
        b.putInt(index, msgTypeId);
        b.putInt(index + LENGTH_OFFSET, length);
        return index + PREFIX;
    }

    @Override
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    @Override
    public void commit(final int index)
    {
        ring.commit(index - PREFIX);
    }

    @Override
    public int controlledRead(final ControlledMessageHandler handler, final int limit)
    {
        this.handler = handler;
        return ring.controlledDrain(adapter, limit);
    }

    @Override
    public long producerPosition()
    {
        return ring.producerPosition();
    }

    @Override
    public long consumerPosition()
    {
        return ring.consumerPosition();
    }

    private ControlledCommandHandler.Action onCommand(final AtomicBuffer buffer, final int offset, final int slots)
    {
        final ControlledMessageHandler.Action action = handler.onMessage(
            buffer.getInt(offset), buffer, offset + PREFIX, buffer.getInt(offset + LENGTH_OFFSET));
        switch (action)
        {
            case ABORT:
                return ControlledCommandHandler.Action.ABORT;
            case BREAK:
                return ControlledCommandHandler.Action.BREAK;
            default:
                return ControlledCommandHandler.Action.CONTINUE;
        }
    }
}
