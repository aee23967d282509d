package io.jfabric.agent;

import io.jfabric.Flags;
import io.jfabric.ring.CommandQueue;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What the proxy encodes is what the agent's {@link CommandFlyweight} decodes: each command lands in its ring with
 * its opcode, its fields, its lists and the internal flags the encoding owns; a full ring is refused without a
 * claim.
 */
@Timeout(30)
class CommandProxyTest
{
    private final CommandQueue control = new CommandQueue(4096);
    private final CommandQueue recv = new CommandQueue(4096);
    private final CommandQueue send = new CommandQueue(4096);
    private final AtomicInteger progressCalls = new AtomicInteger();
    private final CommandProxy proxy = new CommandProxy(control, recv, send, progressCalls::incrementAndGet);
    private final CommandFlyweight in = new CommandFlyweight();
    private int opcode;

    private CommandFlyweight readOne(final CommandQueue ring)
    {
        final UnsafeBuffer copy = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
        final ControlledMessageHandler handler = (msgTypeId, buffer, index, length) ->
        {
            opcode = msgTypeId;
            copy.putBytes(0, buffer, index, length);
            return ControlledMessageHandler.Action.BREAK;
        };
        assertEquals(1, ring.controlledRead(handler, 1));
        return in.wrap(copy, 0);
    }

    @Test
    void shouldEncodeASendWithARemoteListAndClearTheApplicationsInternalBits()
    {
        final long[] addresses = {0x1000, 0x2000};
        final long[] lengths = {16, 48};
        final long[] keys = {7, 9};
        assertEquals(0, proxy.transmit(CommandDescriptor.OP_WRITE, 3, Flags.WRITE | CommandDescriptor.FLAG_IOV, -5,
            0xA000, 64, 11, 0, 77, 42, 6, 2, addresses, lengths, keys));

        final CommandFlyweight c = readOne(send);
        assertEquals(CommandDescriptor.OP_WRITE, opcode);
        assertEquals(3, c.endpoint());
        assertEquals(Flags.WRITE | CommandDescriptor.FLAG_RMA_IOV, c.flags());
        assertEquals(-5, c.context());
        assertEquals(0xA000, c.address());
        assertEquals(64, c.length());
        assertEquals(11, c.peer());
        assertEquals(42, c.rmaKey());
        assertEquals(77, c.data());
        assertEquals(6, c.pin());
        assertEquals(CommandDescriptor.HEADER_LENGTH, c.remoteListOffset());
        final int list = (int) c.remoteListOffset();
        assertEquals(2, c.buffer().getLong(list));
        assertEquals(0x2000, c.buffer().getLong(list + 8 + CommandDescriptor.REMOTE_ENTRY_LENGTH));
        assertEquals(48, c.buffer().getLong(list + 16 + CommandDescriptor.REMOTE_ENTRY_LENGTH));
        assertEquals(9, c.buffer().getLong(list + 24 + CommandDescriptor.REMOTE_ENTRY_LENGTH));
    }

    @Test
    void shouldCopyAnInjectPayloadWithoutContextOrPin()
    {
        final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(32));
        payload.putLong(8, 0x0102030405060708L);
        assertEquals(0, proxy.transmitInline(CommandDescriptor.OP_TSEND, 1, Flags.INJECT, 99, payload, 8, 0, null,
            0, 8, 5, 0x77, 0, 0, 4, 0, null, null, null));

        final CommandFlyweight c = readOne(send);
        assertEquals(CommandDescriptor.OP_TSEND, opcode);
        assertEquals(Flags.INJECT | CommandDescriptor.FLAG_INLINE, c.flags());
        assertEquals(0, c.context(), "an inject call completes nothing");
        assertEquals(PinTable.NONE, c.pin());
        assertEquals(8, c.count());
        assertEquals(0x77, c.tag());
        assertEquals(0x0102030405060708L, c.buffer().getLong(c.bodyOffset()));
    }

    @Test
    void shouldListTheBuffersOfAScatteringReceive()
    {
        final UnsafeBuffer a = new UnsafeBuffer(ByteBuffer.allocateDirect(16));
        final UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(32));
        assertEquals(0, proxy.receiveIov(CommandDescriptor.OP_TRECV, 2, Flags.RECV, 8, new UnsafeBuffer[]{a, b}, 2,
            48, -1, 0x55, 0xF0, 3));

        final CommandFlyweight c = readOne(recv);
        assertEquals(CommandDescriptor.OP_TRECV, opcode);
        assertEquals(Flags.RECV | CommandDescriptor.FLAG_IOV, c.flags());
        assertEquals(2, c.count());
        assertEquals(48, c.length());
        assertEquals(0xF0, c.ignore());
        assertEquals(b.addressOffset(), c.iovAddress(1));
        assertEquals(32, c.iovLength(1));
    }

    @Test
    void shouldRefuseAFullRingWithoutClaiming()
    {
        int posted = 0;
        while (0 == proxy.receive(CommandDescriptor.OP_RECV, 0, 0, posted, 0, 0, -1, 0, 0, PinTable.NONE))
        {
            posted++;
        }
        final long position = recv.producerPosition();
        assertEquals(CommandProxy.RING_FULL,
            proxy.receive(CommandDescriptor.OP_RECV, 0, 0, posted, 0, 0, -1, 0, 0, PinTable.NONE));
        assertEquals(position, recv.producerPosition());
    }

    @Test
    void shouldCarryTheReceiveRingPositionInACancel()
    {
        assertEquals(0, proxy.receive(CommandDescriptor.OP_RECV, 0, 0, 1, 0, 0, -1, 0, 0, PinTable.NONE));
        final long until = recv.producerPosition();
        assertEquals(0, proxy.cancel(4, 1, 17));

        final CommandFlyweight c = readOne(control);
        assertEquals(CommandDescriptor.OP_CANCEL, opcode);
        assertEquals(4, c.endpoint());
        assertEquals(until, c.cancelPosition());
        assertEquals(17, c.replySequence());
        assertEquals(0, progressCalls.get());
    }
}
