package io.jfabric;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Test fixture: two inproc domains with one RDM endpoint each, a CQ per endpoint (TAGGED format), counters, table
 * AVs holding both addresses. Closes everything in order.
 */
final class InprocPair implements AutoCloseable
{
    static final long DEADLINE_NS = 20_000_000_000L;
    private static volatile Domain[] active = new Domain[0];

    final Fabric fabric;
    final Domain domainA;
    final Domain domainB;
    final AddressVector avA;
    final AddressVector avB;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final Counter sendCntrA;
    final Counter recvCntrB;
    final Endpoint a;
    final Endpoint b;
    final long addrBFromA;
    final long addrAFromB;

    InprocPair(final Progress progress)
    {
        this(progress, 0, CqFormat.TAGGED, 1024);
    }

    InprocPair(final Progress progress, final long txCqFlags, final CqFormat format, final int cqSize)
    {
        this(info(progress, 0, 0), txCqFlags, format, cqSize);
    }

    InprocPair(final Info info, final long txCqFlags, final CqFormat format, final int cqSize)
    {
        this(info, info, txCqFlags, format, cqSize);
    }

    /**
     * Two domains opened with different infos (for example a MANUAL sender and an AUTO receiver).
     */
    InprocPair(final Info infoA, final Info infoB, final long txCqFlags, final CqFormat format, final int cqSize)
    {
        final Info info = infoA;
        fabric = Fabric.open(info);
        domainA = fabric.domain(info, "yield");
        domainB = fabric.domain(infoB, "yield");
        avA = domainA.addressVector(AvType.TABLE, 4);
        avB = domainB.addressVector(AvType.TABLE, 4);
        cqA = domainA.completionQueue(cqSize, format);
        cqB = domainB.completionQueue(cqSize, format);
        sendCntrA = domainA.counter();
        recvCntrB = domainB.counter();
        a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV | txCqFlags)
            .bind(sendCntrA, Flags.SEND).enable();
        b = domainB.endpoint(infoB).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV | txCqFlags)
            .bind(recvCntrB, Flags.RECV).enable();
        active = new Domain[]{domainA, domainB};
        addrBFromA = avA.insert(b.name());
        addrAFromB = avB.insert(a.name());
        assertEquals(0, addrBFromA);
        assertEquals(0, addrAFromB);
    }

    static Info info(final Progress progress, final long txOpFlags, final long rxOpFlags)
    {
        final Info hints = Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA)
            .fabricAttr(FabricAttr.builder().provName("inproc").build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .txAttr(TxAttr.builder().opFlags(txOpFlags).build())
            .rxAttr(RxAttr.builder().opFlags(rxOpFlags).build())
            .build();
        final List<Info> infos = Fabric.getInfo(hints);
        return infos.get(0);
    }

    static UnsafeBuffer direct(final int length)
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(length));
    }

    static UnsafeBuffer pattern(final int length, final int seed)
    {
        final UnsafeBuffer buffer = direct(length);
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(i, (byte) (seed + i * 31));
        }
        return buffer;
    }

    static void assertPattern(final UnsafeBuffer buffer, final int offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(offset + i) != (byte) (seed + i * 31))
            {
                fail("byte " + i + " differs: " + buffer.getByte(offset + i) + " != " + (byte) (seed + i * 31));
            }
        }
    }

    /**
     * Read exactly one completion, driving progress, within the deadline.
     */
    static CompletionEntry one(final CompletionQueue cq)
    {
        final CompletionEntry entry = new CompletionEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                return entry;
            }
            if (n != Errno.EAGAIN.negated())
            {
                fail("cq.read returned " + n + " (" + Errno.strerror(n) + ")");
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("no completion before the deadline");
            }
            progressAll();
        }
    }

    /**
     * Manual progress is the application's job: drive every domain of the fixture (a no-op with AUTO).
     */
    static void progressAll()
    {
        for (final Domain d : active)
        {
            d.progress();
        }
        Thread.yield();
    }

    /**
     * Wait for an error entry and read it.
     */
    static CompletionErrorEntry error(final CompletionQueue cq)
    {
        final CompletionErrorEntry entry = new CompletionErrorEntry();
        final CompletionEntry ignored = new CompletionEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(ignored);
            if (n == Errno.EAVAIL.negated())
            {
                assertEquals(1, cq.readErr(entry));
                return entry;
            }
            if (n > 0)
            {
                fail("expected an error completion, got context " + ignored.context());
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("no error completion before the deadline");
            }
            progressAll();
        }
    }

    /**
     * Drive progress a few times and assert the CQ stays empty.
     */
    static void assertEmpty(final CompletionQueue cq)
    {
        for (int i = 0; i < 100; i++)
        {
            progressAll();
        }
        assertEquals(Errno.EAGAIN.negated(), cq.read(new CompletionEntry()));
    }

    @Override
    public void close()
    {
        a.close();
        b.close();
        cqA.close();
        cqB.close();
        sendCntrA.close();
        recvCntrB.close();
        avA.close();
        avB.close();
        domainA.close();
        domainB.close();
        fabric.close();
        active = new Domain[0];
    }
}
