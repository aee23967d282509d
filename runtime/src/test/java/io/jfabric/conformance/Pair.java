package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Test fixture of the conformance suite, for any provider: one fabric, two domains with one RDM endpoint each, a CQ
 * per endpoint, counters (sends of a, receives of b), table AVs holding both addresses. Closes everything in order.
 * The static helpers wait for completions with a deadline, driving the progress of the open pair's domains (manual
 * progress is the application's job; with AUTO it only yields).
 * <p>
 * Threading: test thread only (one open pair at a time per JVM).
 */
public class Pair implements AutoCloseable
{
    /** Every wait gives up after this long. */
    public static final long DEADLINE_NS = 20_000_000_000L;
    private static volatile Domain[] active = new Domain[0];

    /** The info domain and endpoint a were opened with (the fabric's). */
    public final Info infoA;
    /** The info domain and endpoint b were opened with. */
    public final Info infoB;
    public final Fabric fabric;
    public final Domain domainA;
    public final Domain domainB;
    public final AddressVector avA;
    public final AddressVector avB;
    public final CompletionQueue cqA;
    public final CompletionQueue cqB;
    public final Counter sendCntrA;
    public final Counter recvCntrB;
    public final Endpoint a;
    public final Endpoint b;
    public final long addrBFromA;
    public final long addrAFromB;

    /**
     * Two domains opened with their own infos (for example a MANUAL sender and an AUTO receiver).
     *
     * @param infoA     info of domain and endpoint a; it also opens the fabric.
     * @param infoB     info of domain and endpoint b.
     * @param txCqFlags extra CQ bind flags of both endpoints.
     * @param format    CQ format of both CQs.
     * @param cqSize    size of both CQs.
     */
    public Pair(final Info infoA, final Info infoB, final long txCqFlags, final CqFormat format, final int cqSize)
    {
        this.infoA = infoA;
        this.infoB = infoB;
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

    /**
     * @param length bytes.
     * @return a zeroed direct buffer starting on a 4 KiB page (providers such as gni take only page-aligned
     * registrations in some modes; every other provider takes any alignment).
     */
    public static UnsafeBuffer direct(final int length)
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, 4096));
    }

    /**
     * @param length bytes.
     * @param seed   the pattern's seed.
     * @return a direct buffer filled with the pattern of {@code seed}.
     */
    public static UnsafeBuffer pattern(final int length, final int seed)
    {
        final UnsafeBuffer buffer = direct(length);
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(i, (byte) (seed + i * 31));
        }
        return buffer;
    }

    /**
     * Assert {@code length} bytes at {@code offset} hold the pattern of {@code seed}.
     *
     * @param buffer the buffer.
     * @param offset where the pattern starts.
     * @param length bytes.
     * @param seed   the pattern's seed.
     */
    public static void assertPattern(final UnsafeBuffer buffer, final int offset, final int length, final int seed)
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
    public static CompletionEntry one(final CompletionQueue cq)
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
    public static void progressAll()
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
    public static CompletionErrorEntry error(final CompletionQueue cq)
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
    public static void assertEmpty(final CompletionQueue cq)
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
