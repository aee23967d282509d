package io.jfabric;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;

import static io.jfabric.InprocPair.assertEmpty;
import static io.jfabric.InprocPair.direct;
import static io.jfabric.InprocPair.error;
import static io.jfabric.InprocPair.one;
import static io.jfabric.InprocPair.pattern;
import static io.jfabric.InprocPair.progressAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 10: a direct buffer the application stops referencing while it is posted or registered stays reachable
 * until the operation completes (or the region or endpoint closes), so the collector never frees memory the agent
 * still writes into or reads from. Each test drops every reference to a direct {@link ByteBuffer} and watches it
 * through a {@link WeakReference}: it must survive full collections while the operation is in flight, the data
 * must land in it, and it must be collected once the operation is over (proving the test can observe collection).
 */
@Timeout(120)
class BufferLifetimeTest
{
    private static final int SIZE = 4096;
    /** Full collections that must not clear a pinned buffer. */
    private static final int SURVIVE_ROUNDS = 5;
    /** Most full collections to wait for an unpinned buffer to be cleared. */
    private static final int CLEAR_ROUNDS = 50;

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldKeepAPostedReceiveBufferUntilTheMessageLandsInIt(final Progress progress)
    {
        try (InprocPair p = new InprocPair(progress))
        {
            final WeakReference<ByteBuffer> posted = postTrecv(p.b, 7, 1);
            // Let the agent move the receive into its matching engine (MANUAL), then collect.
            progressFew();
            assertSurvives(posted, "a posted receive buffer");

            assertEquals(0, p.a.tsend(pattern(SIZE, 3), 0, SIZE, p.addrBFromA, 7, 2));
            final CompletionEntry rx = one(p.cqB);
            assertEquals(1, rx.context());
            assertEquals(SIZE, rx.len());
            final ByteBuffer buffer = posted.get();
            assertNotNull(buffer, "the receive completed, so its buffer must still exist");
            assertEquals(BufferUtil.address(buffer), rx.buf(), "the message landed in the posted buffer");
            InprocPair.assertPattern(new UnsafeBuffer(buffer), 0, SIZE, 3);
            assertEquals(2, one(p.cqA).context());
        }
    }

    @Test
    void shouldKeepTheByteBufferOfAReWrappedAgronaBufferWhilePosted()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            // Agrona style: one flyweight re-wrapped for every post; only its current ByteBuffer is referenced.
            final UnsafeBuffer flyweight = new UnsafeBuffer(0, 0);
            final WeakReference<ByteBuffer> first = wrapAndPost(p.b, flyweight, 11, 1);
            final UnsafeBuffer other = direct(SIZE);
            assertEquals(0, p.b.trecv(other, 0, SIZE, AddressVector.ADDR_UNSPEC, 12, 0, 2));
            flyweight.wrap(other);
            progressFew();
            assertSurvives(first, "the ByteBuffer behind a re-wrapped flyweight");

            assertEquals(0, p.a.tsend(pattern(SIZE, 5), 0, SIZE, p.addrBFromA, 11, 3));
            assertEquals(1, one(p.cqB).context());
            assertPatternIn(first, 0, SIZE, 5);
            assertEquals(3, one(p.cqA).context());
            assertCollected(first, "a completed receive buffer");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldKeepARegisteredRegionUntilItIsClosed(final Progress progress)
    {
        try (InprocPair p = new InprocPair(progress))
        {
            final WeakReference<ByteBuffer>[] holder = newRefs();
            final MemoryRegion mr = registerDropped(p.domainB, holder, 31);
            assertSurvives(holder[0], "a registered buffer");

            // A remote 4 KiB write lands in the registered memory, and reads back from it.
            assertEquals(0, p.a.write(pattern(SIZE, 9), 0, SIZE, p.addrBFromA, 0, mr.key(), 1));
            assertEquals(1, one(p.cqA).context());
            final UnsafeBuffer back = direct(SIZE);
            assertEquals(0, p.a.read(back, 0, SIZE, p.addrBFromA, 0, mr.key(), 2));
            assertEquals(2, one(p.cqA).context());
            InprocPair.assertPattern(back, 0, SIZE, 9);
            assertPatternIn(holder[0], 0, SIZE, 9);

            mr.close();
            assertCollected(holder[0], "a closed region's buffer");
        }
    }

    @Test
    void shouldKeepARendezvousSendBufferUntilTheReceiverPulledIt()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final int size = 64 * 1024;
            final WeakReference<ByteBuffer> sent = postLargeTsend(p.a, p.addrBFromA, size, 21, 1);
            // The RTS goes out; the data stays in the dropped buffer until a receive matches.
            progressFew();
            assertSurvives(sent, "a rendezvous send buffer");

            final UnsafeBuffer rx = direct(size);
            assertEquals(0, p.b.trecv(rx, 0, size, AddressVector.ADDR_UNSPEC, 21, 0, 2));
            assertEquals(2, one(p.cqB).context());
            InprocPair.assertPattern(rx, 0, size, 13);
            assertEquals(1, one(p.cqA).context());
            assertCollected(sent, "a completed send buffer");
        }
    }

    @Test
    void shouldKeepAnRmaReadDestinationAndAnAtomicResultUntilTheAnswer()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final UnsafeBuffer target = pattern(SIZE, 17);
            target.putLong(0, 40);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, SIZE,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 5))
            {
                // Reads and atomics are not ordered without FI_FENCE: one at a time.
                final WeakReference<ByteBuffer> read = postRead(p.a, p.addrBFromA, mr.key(), 1);
                assertSurvives(read, "an RMA read destination");
                assertEquals(1, one(p.cqA).context());
                assertEquals(40, longAt(read, 0));
                assertPatternIn(read, 8, 100, 17 + 8 * 31);

                final WeakReference<ByteBuffer> result = postFetchAdd(p.a, p.addrBFromA, mr.key(), 2);
                assertSurvives(result, "an atomic result buffer");
                assertEquals(2, one(p.cqA).context());
                assertEquals(40, longAt(result, 0));
                assertEquals(42, target.getLong(0));
                assertCollected(read, "a completed read destination");
                assertCollected(result, "a completed atomic result buffer");
            }
        }
    }

    @Test
    void shouldKeepAMultiRecvBufferUntilItsLastMessage()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final WeakReference<ByteBuffer> posted = postMultiRecv(p.b, 256, 70);
            for (int i = 0; i < 4; i++)
            {
                progressFew();
                assertSurvives(posted, "a multi-recv buffer with room left");
                assertEquals(0, p.a.send(pattern(64, i), 0, 64, p.addrBFromA, 10 + i));
                final CompletionEntry rx = one(p.cqB);
                assertEquals(70, rx.context());
                assertEquals(3 == i ? Flags.MULTI_RECV : 0, rx.flags() & Flags.MULTI_RECV);
                assertPatternIn(posted, 64 * i, 64, i);
                assertEquals(10 + i, one(p.cqA).context());
            }
            // The fourth message filled it: released with FI_MULTI_RECV, so it may go.
            assertCollected(posted, "a released multi-recv buffer");
        }
    }

    @Test
    void shouldKeepContextsThatLookLikePinCookiesAndOtherOperationsPinsWhenAtomicsAreCopiedAtPost()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final UnsafeBuffer target = direct(64);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_WRITE, 6))
            {
                final WeakReference<ByteBuffer> posted = postTrecv(p.a, 80, 1);
                progressFew();
                // FI_INJECT given to the msg form copies the operands and completes (fi_msg(3)); the contexts have
                // the bit pin cookies use, naming slot 0 and 1: they come back whole and release no other pin.
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 3);
                for (final long context : new long[]{Long.MIN_VALUE, Long.MIN_VALUE | 1})
                {
                    assertEquals(0, p.a.atomicmsg(new Message().buffer(operand, 0, 8).addr(p.addrBFromA)
                        .rma(0, mr.key()).context(context), AtomicDatatype.INT64, AtomicOp.SUM, Flags.INJECT));
                }
                final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
                while (target.getLong(0) != 6)
                {
                    assertTrue(System.nanoTime() - deadline < 0, "the atomics did not land");
                    progressAll();
                }
                progressFew();
                assertSurvives(posted, "a receive buffer while INJECT answers came back");
                assertEquals(Long.MIN_VALUE, one(p.cqA).context());
                assertEquals(Long.MIN_VALUE | 1, one(p.cqA).context());
                assertEquals(0, p.b.tsend(pattern(64, 4), 0, 64, p.addrAFromB, 80, 2));
                assertEquals(1, one(p.cqA).context());
                assertPatternIn(posted, 0, 64, 4);
            }
        }
    }

    @Test
    void shouldAnswerEagainWhenThePinTableIsFullAndPostAgainAfterACompletion()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL, Flags.SELECTIVE_COMPLETION, CqFormat.TAGGED, 64))
        {
            // Silent receives reserve no CQ slot: only the pin table (and later the command ring) bounds them.
            final UnsafeBuffer buffer = direct(64);
            final Message msg = new Message().buffer(buffer, 0, 64).addr(AddressVector.ADDR_UNSPEC).tag(3);
            int posted = 0;
            int rc;
            while (0 == (rc = p.b.trecvmsg(msg, 0)) && posted < 100_000)
            {
                posted++;
            }
            assertEquals(Errno.EAGAIN.negated(), rc);
            assertTrue(posted >= 2 * InprocPair.info(Progress.MANUAL, 0, 0).rxAttr().size(), "posted " + posted);
            // The command ring still has room: a receive into raw memory has nothing to pin and posts.
            final UnsafeBuffer raw = new UnsafeBuffer(buffer.addressOffset(), 64);
            assertEquals(0, p.b.trecvmsg(new Message().buffer(raw, 0, 64).addr(AddressVector.ADDR_UNSPEC).tag(4), 0));
            assertEquals(Errno.EAGAIN.negated(), p.b.trecvmsg(msg, 0));

            // One receive completes (silently): its slot comes back and the next post goes through.
            assertEquals(0, p.a.tsend(pattern(64, 2), 0, 64, p.addrBFromA, 3, 1));
            final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
            while (p.recvCntrB.read() < 1)
            {
                assertTrue(System.nanoTime() - deadline < 0, "no silent completion");
                progressAll();
            }
            assertEquals(0, p.b.trecvmsg(msg, 0));
        }
    }

    @Test
    void shouldReleaseTransmitBuffersOnErrorAndOnSilentCompletions()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL, Flags.SELECTIVE_COMPLETION, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = pattern(SIZE, 23);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, SIZE, Flags.REMOTE_READ, 8))
            {
                // A read with a bad key fails at the target: the error completion releases the destination.
                final WeakReference<ByteBuffer> failed = postReadmsg(p.a, p.addrBFromA, mr.key() + 1, Flags.COMPLETION);
                assertSurvives(failed, "a read destination before its error");
                final CompletionErrorEntry err = error(p.cqA);
                assertEquals(Errno.EINVAL.value(), err.err());
                assertCollected(failed, "the destination of a failed read");

                // A read posted without FI_COMPLETION under selective completion completes silently.
                final WeakReference<ByteBuffer> silent = postReadmsg(p.a, p.addrBFromA, mr.key(), 0);
                assertSurvives(silent, "a silent read destination before the data");
                final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
                while (0 != longAt(silent, 100))
                {
                    assertTrue(System.nanoTime() - deadline < 0, "the silent read never landed");
                    progressAll();
                }
                progressFew();
                assertPatternIn(silent, 0, 108, 23);
                assertCollected(silent, "the destination of a silently completed read");
                assertEmpty(p.cqA);
            }
        }
    }

    @Test
    void shouldReleaseACancelledReceiveBuffer()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final WeakReference<ByteBuffer> posted = postTrecv(p.b, 40, 9);
            progressFew();
            assertSurvives(posted, "a posted receive buffer");
            assertEquals(0, p.b.cancel(9));
            final CompletionErrorEntry err = error(p.cqB);
            assertEquals(Errno.ECANCELED.value(), err.err());
            assertCollected(posted, "a cancelled receive buffer");
        }
    }

    @Test
    void shouldReleaseASilentlyCompletedReceiveBuffer()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL, Flags.SELECTIVE_COMPLETION, CqFormat.TAGGED, 64))
        {
            final WeakReference<ByteBuffer> posted = postSilentTrecv(p.b, 50);
            progressFew();
            assertSurvives(posted, "a posted silent receive buffer");
            assertEquals(0, p.a.tsendmsg(new Message().buffer(pattern(64, 1), 0, 64).addr(p.addrBFromA).tag(50),
                0));
            final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
            while (p.recvCntrB.read() < 1)
            {
                assertTrue(System.nanoTime() - deadline < 0, "no silent completion");
                progressAll();
            }
            assertPatternIn(posted, 0, 64, 1);
            assertCollected(posted, "a silently completed receive buffer");
        }
    }

    @Test
    void shouldReleaseBuffersOfOperationsInFlightWhenTheEndpointCloses()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final WeakReference<ByteBuffer> posted = postTrecv(p.b, 60, 1);
            progressFew();
            assertSurvives(posted, "a posted receive buffer");
            p.b.close();
            assertCollected(posted, "a receive buffer of a closed endpoint");
        }
    }

    // ------------------------------------------------------------------ helpers (no reference escapes them)

    private static WeakReference<ByteBuffer> postTrecv(final Endpoint ep, final long tag, final long context)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
        assertEquals(0, ep.trecv(buffer, 0, SIZE, AddressVector.ADDR_UNSPEC, tag, 0, context));
        return new WeakReference<>(buffer);
    }

    private static WeakReference<ByteBuffer> postMultiRecv(final Endpoint ep, final int size, final long context)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        assertEquals(0, ep.recvmsg(new Message().buffer(new UnsafeBuffer(buffer), 0, size)
            .addr(AddressVector.ADDR_UNSPEC).context(context), Flags.MULTI_RECV));
        return new WeakReference<>(buffer);
    }

    private static WeakReference<ByteBuffer> postSilentTrecv(final Endpoint ep, final long tag)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
        assertEquals(0, ep.trecvmsg(new Message().buffer(new UnsafeBuffer(buffer), 0, SIZE)
            .addr(AddressVector.ADDR_UNSPEC).tag(tag), 0));
        return new WeakReference<>(buffer);
    }

    private static WeakReference<ByteBuffer> wrapAndPost(
        final Endpoint ep, final UnsafeBuffer flyweight, final long tag, final long context)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
        flyweight.wrap(buffer);
        assertEquals(0, ep.trecv(flyweight, 0, SIZE, AddressVector.ADDR_UNSPEC, tag, 0, context));
        return new WeakReference<>(buffer);
    }

    private static MemoryRegion registerDropped(
        final Domain domain, final WeakReference<ByteBuffer>[] holder, final long key)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
        holder[0] = new WeakReference<>(buffer);
        return domain.registerMemory(new UnsafeBuffer(buffer), 0, SIZE, Flags.REMOTE_READ | Flags.REMOTE_WRITE, key);
    }

    private static WeakReference<ByteBuffer> postLargeTsend(
        final Endpoint ep, final long dest, final int size, final long tag, final long context)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        final DirectBuffer source = pattern(size, 13);
        new UnsafeBuffer(buffer).putBytes(0, source, 0, size);
        assertEquals(0, ep.tsend(buffer, 0, size, dest, tag, context));
        return new WeakReference<>(buffer);
    }

    private static WeakReference<ByteBuffer> postRead(
        final Endpoint ep, final long dest, final long key, final long context)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
        assertEquals(0, ep.read(new UnsafeBuffer(buffer), 0, 108, dest, 0, key, context));
        return new WeakReference<>(buffer);
    }

    private static WeakReference<ByteBuffer> postReadmsg(
        final Endpoint ep, final long dest, final long key, final long flags)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
        assertEquals(0, ep.readmsg(new Message().buffer(new UnsafeBuffer(buffer), 0, 108).addr(dest).rma(0, key)
            .context(2), flags));
        return new WeakReference<>(buffer);
    }

    private static WeakReference<ByteBuffer> postFetchAdd(
        final Endpoint ep, final long dest, final long key, final long context)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(8);
        final UnsafeBuffer operand = direct(8);
        operand.putLong(0, 2);
        assertEquals(0, ep.fetchAtomic(operand, 0, 1, new UnsafeBuffer(buffer), 0, dest, 0, key,
            AtomicDatatype.INT64, AtomicOp.SUM, context));
        return new WeakReference<>(buffer);
    }

    /** Reads through a weak reference in a frame of its own, so that no strong reference outlives the call. */
    private static long longAt(final WeakReference<ByteBuffer> ref, final int index)
    {
        final ByteBuffer buffer = ref.get();
        assertNotNull(buffer);
        return new UnsafeBuffer(buffer).getLong(index);
    }

    private static void assertPatternIn(
        final WeakReference<ByteBuffer> ref, final int offset, final int length, final int seed)
    {
        final ByteBuffer buffer = ref.get();
        assertNotNull(buffer);
        InprocPair.assertPattern(new UnsafeBuffer(buffer), offset, length, seed);
    }

    @SuppressWarnings("unchecked")
    private static WeakReference<ByteBuffer>[] newRefs()
    {
        return (WeakReference<ByteBuffer>[]) new WeakReference[1];
    }

    private static void progressFew()
    {
        for (int i = 0; i < 10; i++)
        {
            progressAll();
        }
    }

    private static void fullCollection()
    {
        // Allocation pressure and an explicit full collection: a weakly reachable buffer is cleared by it.
        byte[][] garbage = new byte[32][];
        for (int i = 0; i < garbage.length; i++)
        {
            garbage[i] = new byte[64 * 1024];
        }
        garbage = null;
        System.gc();
    }

    private static void assertSurvives(final WeakReference<ByteBuffer> ref, final String what)
    {
        for (int i = 0; i < SURVIVE_ROUNDS; i++)
        {
            fullCollection();
            if (null == ref.get())
            {
                fail(what + " was collected while the runtime still uses it");
            }
        }
    }

    private static void assertCollected(final WeakReference<ByteBuffer> ref, final String what)
    {
        for (int i = 0; i < CLEAR_ROUNDS && null != ref.get(); i++)
        {
            fullCollection();
        }
        if (null != ref.get())
        {
            fail(what + " is still reachable: the runtime did not let it go");
        }
    }
}
