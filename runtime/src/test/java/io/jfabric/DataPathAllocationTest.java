package io.jfabric;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class DataPathAllocationTest
{
    private static long allocatedBytes()
    {
        final com.sun.management.ThreadMXBean bean =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return bean.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void shouldAllocateNothingForTaggedAndMsgPingPongWithManualProgressAfterWarmUp()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final UnsafeBuffer tx = InprocPair.pattern(64, 1);
            final UnsafeBuffer rx = InprocPair.direct(64);
            final CompletionEntry entry = new CompletionEntry();
            final CompletionEntry[] entries = {new CompletionEntry(), new CompletionEntry()};
            final Message msg = new Message().buffer(tx, 0, 64).addr(p.addrBFromA).tag(3).context(5);
            for (int i = 0; i < 20_000; i++)
            {
                roundTrip(p, tx, rx, entry, entries, msg, i);
            }
            // Calibrate: the measuring call itself may allocate a little the first times.
            allocatedBytes();
            final long calibrateStart = allocatedBytes();
            final long overhead = allocatedBytes() - calibrateStart;
            final long before = allocatedBytes();
            for (int i = 0; i < 100_000; i++)
            {
                roundTrip(p, tx, rx, entry, entries, msg, i);
            }
            final long allocated = allocatedBytes() - before - overhead;
            // 100k round trips post 400k operations and read 300k completions: one allocation per call would be
            // megabytes. What remains (a few hundred bytes, independent of the iteration count) is the JVM's own
            // (JIT and thread-allocation accounting; under 1 KiB when measured), so the bound of 64 KiB is still far
            // below one 16-byte object per 100 calls.
            assertTrue(allocated < 65536, "bytes allocated by 100k round trips: " + allocated);
        }
    }

    @Test
    void shouldAllocateNothingForIovStreamedRmaAtomicIovAndCancelAfterWarmUp()
    {
        try (InprocPair p = new InprocPair(Progress.MANUAL))
        {
            final UnsafeBuffer target = InprocPair.direct(400_000);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 400_000,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 5))
            {
                final Calls calls = new Calls(p, mr.key());
                for (int i = 0; i < 2_000; i++)
                {
                    calls.run(i);
                }
                allocatedBytes();
                final long calibrateStart = allocatedBytes();
                final long overhead = allocatedBytes() - calibrateStart;
                final long before = allocatedBytes();
                for (int i = 0; i < 10_000; i++)
                {
                    calls.run(i);
                }
                final long allocated = allocatedBytes() - before - overhead;
                // 10k rounds post 90k operations (rendezvous iov sends into receive iovs, RMA to several remote
                // ranges, streamed reads and writes, atomics over iovs, cancels) and read 80k completions.
                assertTrue(allocated < 65536, "bytes allocated by 10k rounds: " + allocated);
            }
        }
    }

    /**
     * One round of the iov, streamed-RMA, atomic-iov and cancel calls, all objects made up front.
     */
    private static final class Calls
    {
        final InprocPair p;
        final long key;
        final UnsafeBuffer txWhole = InprocPair.pattern(12_000, 3);
        final UnsafeBuffer rxWhole = InprocPair.direct(12_000);
        final DirectBuffer[] tx = {new UnsafeBuffer(txWhole, 0, 5_000), new UnsafeBuffer(txWhole, 5_000, 7_000)};
        final DirectBuffer[] rx = {new UnsafeBuffer(rxWhole, 0, 7_000), new UnsafeBuffer(rxWhole, 7_000, 5_000)};
        final UnsafeBuffer big = InprocPair.pattern(300_000, 4);
        final UnsafeBuffer operands = InprocPair.direct(16);
        final DirectBuffer[] operandIov = {new UnsafeBuffer(operands, 0, 8), new UnsafeBuffer(operands, 8, 8)};
        final UnsafeBuffer results = InprocPair.direct(16);
        final DirectBuffer[] resultIov = {new UnsafeBuffer(results, 0, 8), new UnsafeBuffer(results, 8, 8)};
        final long[] rmaAddresses = {0, 1000};
        final long[] rmaLengths = {6_000, 6_000};
        final long[] rmaKeys = new long[2];
        final Message write = new Message();
        final CompletionEntry entry = new CompletionEntry();

        Calls(final InprocPair p, final long key)
        {
            this.p = p;
            this.key = key;
            rmaKeys[0] = key;
            rmaKeys[1] = key;
            write.iov(tx, 2).addr(p.addrBFromA).rmaIov(rmaAddresses, rmaLengths, rmaKeys, 2).context(3);
        }

        void run(final int i)
        {
            check(1, p.b.trecvv(rx, 2, AddressVector.ADDR_UNSPEC, 9, 0, i));
            check(2, p.a.tsendv(tx, 2, p.addrBFromA, 9, 1));
            check(3, p.a.writemsg(write, Flags.COMPLETION));
            check(4, p.a.readv(rx, 2, p.addrBFromA, 0, key, 4));
            check(5, p.a.write(big, 0, 300_000, p.addrBFromA, 0, key, 5));
            check(6, p.a.read(big, 0, 300_000, p.addrBFromA, 0, key, 6));
            check(7, p.a.fetchAtomicv(operandIov, 2, resultIov, 2, p.addrBFromA, 0, key, AtomicDatatype.INT64,
                AtomicOp.SUM, 7));
            check(8, p.b.cancel(123_456_789L));
            await(p.cqB, p.domainA, 1);
            await(p.cqA, p.domainB, 6);
        }

        private static void check(final int call, final int status)
        {
            if (0 != status)
            {
                throw new IllegalStateException("call " + call + " returned " + status);
            }
        }

        private void await(final CompletionQueue cq, final Domain other, final int count)
        {
            int got = 0;
            while (got < count)
            {
                other.progress();
                final int n = cq.read(entry);
                if (n > 0)
                {
                    got += n;
                }
                else if (n != Errno.EAGAIN.negated())
                {
                    throw new IllegalStateException("cq.read " + n);
                }
            }
        }
    }

    private static void roundTrip(
        final InprocPair p,
        final UnsafeBuffer tx,
        final UnsafeBuffer rx,
        final CompletionEntry entry,
        final CompletionEntry[] entries,
        final Message msg,
        final int i)
    {
        if (0 != p.b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 3, 0, i) ||
            0 != p.a.tsendmsg(msg, Flags.COMPLETION) ||
            0 != p.a.inject(tx, 0, 8, p.addrBFromA) ||
            0 != p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, i))
        {
            throw new IllegalStateException("post failed");
        }
        int got = 0;
        while (got < 2)
        {
            p.domainA.progress();
            final int n = p.cqB.read(entries, 2);
            if (n > 0)
            {
                got += n;
            }
        }
        while (1 != p.cqA.read(entry))
        {
            p.domainB.progress();
        }
        p.sendCntrA.read();
    }
}
