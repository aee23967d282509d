package io.jfabric;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;

import static io.jfabric.InprocPair.assertEmpty;
import static io.jfabric.InprocPair.direct;
import static io.jfabric.InprocPair.one;
import static io.jfabric.InprocPair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 10: a read-only direct {@link ByteBuffer} (or an Agrona buffer over one) is never written into: as a
 * receive buffer, an RMA read destination or an atomic result it is refused with {@code -EINVAL} at post, and it
 * cannot be registered with an access that lets the fabric write into it (fi_mr(3): FI_RECV, FI_READ,
 * FI_REMOTE_WRITE). It still works as a source.
 */
@Timeout(60)
class ReadOnlyBufferTest
{
    private static final int EINVAL = Errno.EINVAL.negated();

    private static ByteBuffer readOnly(final int size, final int fill)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++)
        {
            buffer.put(i, (byte) fill);
        }
        return buffer.asReadOnlyBuffer();
    }

    @Test
    void shouldRefuseReadOnlyBuffersAsReceiveTargetsAndNeverWriteIntoThem()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final ByteBuffer ro = readOnly(64, 0x11);
            final UnsafeBuffer roAgrona = new UnsafeBuffer(ro);
            final DirectBuffer[] roIov = {direct(32), roAgrona};
            assertEquals(EINVAL, p.b.recv(ro, 0, 64, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(EINVAL, p.b.recv(roAgrona, 0, 64, AddressVector.ADDR_UNSPEC, 2));
            assertEquals(EINVAL, p.b.trecv(ro, 0, 64, AddressVector.ADDR_UNSPEC, 5, 0, 3));
            assertEquals(EINVAL, p.b.trecv(roAgrona, 0, 64, AddressVector.ADDR_UNSPEC, 5, 0, 4));
            assertEquals(EINVAL, p.b.recvv(roIov, 2, AddressVector.ADDR_UNSPEC, 5));
            assertEquals(EINVAL, p.b.trecvv(roIov, 2, AddressVector.ADDR_UNSPEC, 5, 0, 6));
            assertEquals(EINVAL, p.b.trecvv(new DirectBuffer[]{roAgrona}, 1, AddressVector.ADDR_UNSPEC, 5, 0, 7));
            assertEquals(EINVAL, p.b.recvmsg(new Message().buffer(roAgrona, 0, 64).context(8), 0));
            assertEquals(EINVAL, p.b.trecvmsg(new Message().iov(new DirectBuffer[]{roAgrona}, 1).tag(5).context(9),
                0));
            assertEquals(EINVAL, p.b.trecvmsg(new Message().iov(roIov, 2).tag(5).context(10), 0));

            // Nothing was posted: a message for tag 5 stays unexpected and the read-only memory is untouched.
            assertEquals(0, p.a.tsend(pattern(64, 1), 0, 64, p.addrBFromA, 5, 11));
            assertEquals(11, one(p.cqA).context());
            assertEmpty(p.cqB);
            for (int i = 0; i < 64; i++)
            {
                assertEquals(0x11, ro.get(i));
            }
        }
    }

    @Test
    void shouldSendFromAReadOnlyBuffer()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final ByteBuffer source = ByteBuffer.allocateDirect(64);
            new UnsafeBuffer(source).putBytes(0, pattern(64, 7), 0, 64);
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 3, 0, 1));
            assertEquals(0, p.a.tsend(source.asReadOnlyBuffer(), 0, 64, p.addrBFromA, 3, 2));
            assertEquals(1, one(p.cqB).context());
            InprocPair.assertPattern(rx, 0, 64, 7);
            assertEquals(2, one(p.cqA).context());
        }
    }

    @Test
    void shouldRefuseReadOnlyRmaReadDestinationsAndAtomicResults()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final UnsafeBuffer target = direct(64);
            target.putLong(0, 10);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_READ | Flags.REMOTE_WRITE, 4))
            {
                final ByteBuffer ro = readOnly(64, 0x22);
                final UnsafeBuffer roAgrona = new UnsafeBuffer(ro);
                final DirectBuffer[] roIov = {direct(8), new UnsafeBuffer(ro, 0, 8)};
                final long dest = p.addrBFromA;
                assertEquals(EINVAL, p.a.read(roAgrona, 0, 8, dest, 0, mr.key(), 1));
                assertEquals(EINVAL, p.a.readv(roIov, 2, dest, 0, mr.key(), 2));
                assertEquals(EINVAL, p.a.readv(new DirectBuffer[]{roAgrona}, 1, dest, 0, mr.key(), 3));
                assertEquals(EINVAL, p.a.readmsg(new Message().buffer(roAgrona, 0, 8).addr(dest).rma(0, mr.key())
                    .context(4), 0));
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 1);
                assertEquals(EINVAL, p.a.fetchAtomic(operand, 0, 1, roAgrona, 0, dest, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 5));
                assertEquals(EINVAL, p.a.compareAtomic(operand, 0, 1, direct(8), 0, roAgrona, 0, dest, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.CSWAP, 6));
                assertEquals(EINVAL, p.a.fetchAtomicv(new DirectBuffer[]{direct(16)}, 1, roIov, 2, dest, 0,
                    mr.key(), AtomicDatatype.INT64, AtomicOp.SUM, 7));
                assertEquals(EINVAL, p.a.fetchAtomicmsg(new Message().buffer(operand, 0, 8).addr(dest)
                    .rma(0, mr.key()), roAgrona, 0, AtomicDatatype.INT64, AtomicOp.SUM, 0));
                assertEquals(EINVAL, p.a.compareAtomicv(new DirectBuffer[]{operand}, 1,
                    new DirectBuffer[]{direct(8)}, 1, new DirectBuffer[]{new UnsafeBuffer(ro, 0, 8)}, 1, dest, 0,
                    mr.key(), AtomicDatatype.INT64, AtomicOp.CSWAP, 8));
                assertEmpty(p.cqA);
                assertEquals(10, target.getLong(0));
                assertEquals(0x22, ro.get(0));

                // A read-only buffer is a fine source: write and atomic operands.
                final ByteBuffer roSource = ByteBuffer.allocateDirect(8);
                new UnsafeBuffer(roSource).putLong(0, 5);
                final UnsafeBuffer source = new UnsafeBuffer(roSource.asReadOnlyBuffer());
                assertEquals(0, p.a.atomic(source, 0, 1, dest, 0, mr.key(), AtomicDatatype.INT64, AtomicOp.SUM, 9));
                assertEquals(9, one(p.cqA).context());
                assertEquals(0, p.a.write(source, 0, 8, dest, 8, mr.key(), 10));
                assertEquals(10, one(p.cqA).context());
                assertEquals(15, target.getLong(0));
                assertEquals(5, target.getLong(8));
            }
        }
    }

    @Test
    void shouldRefuseToRegisterAReadOnlyBufferForAccessesThatWriteIntoIt()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final UnsafeBuffer ro = new UnsafeBuffer(readOnly(64, 0));
            for (final long access : new long[]{Flags.REMOTE_WRITE, Flags.RECV, Flags.READ,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE})
            {
                final FabricException ex = assertThrows(FabricException.class,
                    () -> p.domainB.registerMemory(ro, 0, 64, access, 40));
                assertEquals(Errno.EINVAL, ex.errno());
                assertTrue(ex.getMessage().contains("read-only"), ex.getMessage());
                final FabricException regv = assertThrows(FabricException.class,
                    () -> p.domainB.registerMemory(new DirectBuffer[]{direct(64), ro}, 2, access, 41));
                assertEquals(Errno.EINVAL, regv.errno());
                final FabricException regattr = assertThrows(FabricException.class,
                    () -> p.domainB.registerMemory(MrAttr.builder().iov(ro).access(access).requestedKey(42).build(),
                    0));
                assertEquals(Errno.EINVAL, regattr.errno());
            }
            // Read-side accesses are fine; the key was not taken by the refused attempts.
            try (MemoryRegion mr = p.domainB.registerMemory(ro, 0, 64, Flags.REMOTE_READ | Flags.SEND | Flags.WRITE,
                40))
            {
                assertEquals(40, mr.key());
            }
        }
    }
}
