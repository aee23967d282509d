package io.jfabric.agent;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The flyweights write the byte layouts their descriptors draw (a frame is read by another process's agent, a
 * command by the agent from what an application thread wrote).
 */
@Timeout(60)
class FlyweightLayoutTest
{
    @Test
    void shouldWriteEveryFrameFieldWhereTheDiagramPutsIt()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        final int at = 24;
        final FrameFlyweight out = new FrameFlyweight().wrapForEncode(buffer, at);
        out.version(FrameDescriptor.VERSION).opcode(FrameDescriptor.OPCODE_CTS).dstEndpoint(7).srcKey(0x1_0002L)
            .tag(-3).data(44).length(5555).flags(FrameDescriptor.FLAG_RMA_WRITE).cookie(Long.MIN_VALUE | 9)
            .sequence(12).rmaAddress(0xABCDEFL).rmaKey(31);
        assertEquals(1, buffer.getByte(at));
        assertEquals(FrameDescriptor.OPCODE_CTS, buffer.getByte(at + 1));
        assertEquals(7, buffer.getInt(at + 4));
        assertEquals(0x1_0002L, buffer.getLong(at + 8));
        assertEquals(-3, buffer.getLong(at + 16));
        assertEquals(44, buffer.getLong(at + 24));
        assertEquals(5555, buffer.getLong(at + 32));
        assertEquals(FrameDescriptor.FLAG_RMA_WRITE, buffer.getLong(at + 40));
        assertEquals(Long.MIN_VALUE | 9, buffer.getLong(at + 48));
        assertEquals(12, buffer.getLong(at + 56));
        assertEquals(0xABCDEFL, buffer.getLong(at + 64));
        assertEquals(31, buffer.getLong(at + 72));
        assertEquals(at + 64, out.payloadOffset());
        assertEquals(at + 80, out.rmaPayloadOffset());
        // The one field a transport may touch sits where the SPI says.
        assertEquals(io.jfabric.spi.DomainTransport.SOURCE_KEY_OFFSET, FrameDescriptor.SRC_KEY_OFFSET);

        final FrameFlyweight in = new FrameFlyweight().wrap(buffer, at);
        assertEquals(FrameDescriptor.OPCODE_CTS, in.opcode());
        assertEquals(0x1_0002L, in.srcKey());
        assertEquals(Long.MIN_VALUE | 9, in.cookie());
        assertEquals(31, in.rmaKey());
        assertEquals(buffer.addressOffset() + at + 64, in.payloadAddress());
    }

    @Test
    void shouldReadEachMeaningOfASharedCommandFieldFromTheSameBytes()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        final int at = 8;
        final CommandFlyweight out = new CommandFlyweight().wrapForEncode(buffer, at);
        out.endpoint(3).count(2).flags(0x55).context(-9).address(1000).length(64).peer(17).remoteAddress(0x7000)
            .rmaKey(42).atomicCode(CommandDescriptor.atomicCode(1, 2, 3)).pin(5).iov(1, 0x9000, 16);
        assertEquals(3, buffer.getInt(at));
        assertEquals(2, buffer.getInt(at + 4));
        assertEquals(0x55, buffer.getLong(at + 8));
        assertEquals(-9, buffer.getLong(at + 16));
        assertEquals(1000, buffer.getLong(at + 24));
        assertEquals(64, buffer.getLong(at + 32));
        assertEquals(17, buffer.getLong(at + 40));
        assertEquals(0x7000, buffer.getLong(at + 48));
        assertEquals(42, buffer.getLong(at + 56));
        assertEquals(CommandDescriptor.atomicCode(1, 2, 3), buffer.getLong(at + 64));
        assertEquals(6, buffer.getInt(at + 72), "pin slot + 1");
        assertEquals(0x9000, buffer.getLong(at + 80 + 16));
        assertEquals(16, buffer.getLong(at + 80 + 24));

        final CommandFlyweight in = new CommandFlyweight().wrap(buffer, at);
        assertEquals(in.tag(), in.remoteAddress());
        assertEquals(in.tag(), in.mrKey());
        assertEquals(in.tag(), in.fiAddr());
        assertEquals(in.ignore(), in.rmaKey());
        assertEquals(in.data(), in.replySequence());
        assertEquals(in.context(), in.avId());
        assertEquals(5, in.pin());
        assertEquals(0x9000, in.iovAddress(1));
        assertEquals(16, in.iovLength(1));
        // A zeroed record pins nothing.
        buffer.putInt(at + 72, 0);
        assertEquals(PinTable.NONE, in.pin());
    }
}
