package io.jfabric;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.InprocPair.assertPattern;
import static io.jfabric.InprocPair.direct;
import static io.jfabric.InprocPair.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code CompletionErrorEntry} err_data ({@code err_data}/{@code err_data_size}, fi_cq(3)) and {@code FI_SOURCE_ERR}:
 * a message from an address the receiver's AV does not hold completes as an error {@code EADDRNOTAVAIL} carrying the
 * sender's address, which the application inserts to receive from it by fi_addr; without FI_SOURCE_ERR the same
 * message completes normally with source {@code FI_ADDR_NOTAVAIL}. Runs over the test-only
 * {@link DescribedTestProvider} (which offers FI_SOURCE_ERR; the runtime implements it for every provider) and
 * inproc.
 */
@Timeout(60)
class SourceErrTest
{
    @Test
    void shouldCompleteAMessageFromAnUnknownSourceWithEaddrnotavailAndItsAddressAsErrData()
    {
        final Info info = ProviderCapabilitiesTest.described("source-err",
            Flags.MSG | Flags.TAGGED | Flags.SOURCE | Flags.SOURCE_ERR);
        assertEquals(Flags.SOURCE | Flags.SOURCE_ERR, info.caps() & (Flags.SOURCE | Flags.SOURCE_ERR));
        try (Sides s = new Sides(info))
        {
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, s.b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 7, 0, 21));
            assertEquals(0, s.a.tsend(pattern(40, 5), 0, 40, s.bFromA, 7, 22));
            final CompletionEntry[] sent = { new CompletionEntry() };
            s.readOneFrom(s.cqA, sent, new long[1]);
            assertEquals(22, sent[0].context());

            final CompletionErrorEntry error = new CompletionErrorEntry();
            s.awaitError(s.cqB, error);
            assertEquals(Errno.EADDRNOTAVAIL, error.errno());
            assertEquals(0, error.provErrno());
            assertEquals(21, error.context());
            assertEquals(Flags.TAGGED | Flags.RECV, error.flags());
            assertEquals(40, error.len());
            assertEquals(7, error.tag());
            assertEquals(AddressVector.ADDR_NOTAVAIL, error.src());
            // The message was delivered all the same.
            assertPattern(rx, 0, 40, 5);
            final byte[] name = s.a.name();
            assertEquals(name.length, error.errDataSize());
            final byte[] address = new byte[error.errDataSize()];
            System.arraycopy(error.errData(), 0, address, 0, address.length);
            assertArrayEquals(name, address);
            assertEquals(1, s.counterB.readErr());

            // Inserted, the address names the sender: its next message completes normally, from that fi_addr.
            final long aFromB = s.avB.insert(address);
            assertTrue(aFromB >= 0);
            assertEquals(0, s.b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 8, 0, 23));
            assertEquals(0, s.a.tsend(pattern(16, 6), 0, 16, s.bFromA, 8, 24));
            final CompletionEntry[] entries = { new CompletionEntry() };
            final long[] sources = new long[1];
            s.readOneFrom(s.cqB, entries, sources);
            assertEquals(23, entries[0].context());
            assertEquals(aFromB, sources[0]);
            assertEquals(1, s.counterB.read());

            // A buffer given for err_data takes at most its length (err_data_size).
            assertEquals(0, s.c.tsend(pattern(8, 7), 0, 8, s.bFromC, 9, 25));
            assertEquals(0, s.b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 9, 0, 26));
            final byte[] small = new byte[4];
            final CompletionErrorEntry truncated = new CompletionErrorEntry().errData(small);
            s.awaitError(s.cqB, truncated);
            assertEquals(Errno.EADDRNOTAVAIL, truncated.errno());
            assertEquals(4, truncated.errDataSize());
            assertEquals(small, truncated.errData());
            final byte[] cName = s.c.name();
            for (int i = 0; i < 4; i++)
            {
                assertEquals(cName[i], small[i]);
            }
        }
    }

    @Test
    void shouldReportTheSourceOfARendezvousMessageFromAnUnknownSourceToo()
    {
        final Info info = ProviderCapabilitiesTest.described("source-err-rndv",
            Flags.MSG | Flags.TAGGED | Flags.SOURCE | Flags.SOURCE_ERR);
        final int length = 3 * 8192;
        try (Sides s = new Sides(info))
        {
            final UnsafeBuffer rx = direct(length);
            assertEquals(0, s.b.trecv(rx, 0, length, AddressVector.ADDR_UNSPEC, 3, 0, 41));
            assertEquals(0, s.a.tsend(pattern(length, 9), 0, length, s.bFromA, 3, 42));
            final CompletionErrorEntry error = new CompletionErrorEntry();
            s.awaitError(s.cqB, error);
            assertEquals(Errno.EADDRNOTAVAIL, error.errno());
            assertEquals(41, error.context());
            assertEquals(length, error.len());
            assertPattern(rx, 0, length, 9);
            final byte[] address = new byte[error.errDataSize()];
            System.arraycopy(error.errData(), 0, address, 0, address.length);
            assertArrayEquals(s.a.name(), address);
            final CompletionEntry[] sent = { new CompletionEntry() };
            s.readOneFrom(s.cqA, sent, new long[1]);
            assertEquals(42, sent[0].context());
        }
    }

    @Test
    void shouldCompleteAMessageFromAnUnknownSourceNormallyWithoutSourceErr()
    {
        final Info info = ProviderCapabilitiesTest.inproc(Flags.MSG | Flags.TAGGED | Flags.SOURCE);
        assertEquals(0, info.caps() & Flags.SOURCE_ERR);
        try (Sides s = new Sides(info))
        {
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, s.b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 7, 0, 31));
            assertEquals(0, s.a.tsend(pattern(40, 5), 0, 40, s.bFromA, 7, 32));
            final CompletionEntry[] entries = { new CompletionEntry() };
            final long[] sources = { 0 };
            s.readOneFrom(s.cqB, entries, sources);
            assertEquals(31, entries[0].context());
            assertEquals(40, entries[0].len());
            assertEquals(AddressVector.ADDR_NOTAVAIL, sources[0]);
            assertEquals(0, s.counterB.readErr());
        }
    }

    /**
     * Senders A and C, receiver B, each in its own MANUAL domain; A and C know B, B knows nobody.
     */
    private static final class Sides implements AutoCloseable
    {
        final Fabric fabric;
        final Domain domainA;
        final Domain domainB;
        final Domain domainC;
        final AddressVector avA;
        final AddressVector avB;
        final AddressVector avC;
        final CompletionQueue cqA;
        final CompletionQueue cqB;
        final CompletionQueue cqC;
        final Counter counterB;
        final Endpoint a;
        final Endpoint b;
        final Endpoint c;
        final long bFromA;
        final long bFromC;

        Sides(final Info info)
        {
            fabric = Fabric.open(info);
            domainA = fabric.domain(info);
            domainB = fabric.domain(info);
            domainC = fabric.domain(info);
            avA = domainA.addressVector(AvType.TABLE, 4);
            avB = domainB.addressVector(AvType.TABLE, 4);
            avC = domainC.addressVector(AvType.TABLE, 4);
            cqA = domainA.completionQueue(16, CqFormat.TAGGED);
            cqB = domainB.completionQueue(16, CqFormat.TAGGED);
            cqC = domainC.completionQueue(16, CqFormat.TAGGED);
            counterB = domainB.counter();
            a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
            b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).bind(counterB, Flags.RECV)
                .enable();
            c = domainC.endpoint(info).bind(avC, 0).bind(cqC, Flags.TRANSMIT | Flags.RECV).enable();
            bFromA = avA.insert(b.name());
            bFromC = avC.insert(b.name());
        }

        void readOneFrom(final CompletionQueue cq, final CompletionEntry[] entries, final long[] sources)
        {
            final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
            int n;
            while ((n = cq.readFrom(entries, sources, 1)) != 1)
            {
                assertEquals(Errno.EAGAIN.negated(), n, "readFrom");
                assertTrue(System.nanoTime() - deadline < 0, "no completion before the deadline");
                progress();
            }
        }

        void awaitError(final CompletionQueue cq, final CompletionErrorEntry entry)
        {
            final long deadline = System.nanoTime() + InprocPair.DEADLINE_NS;
            int n;
            while ((n = cq.readErr(entry)) != 1)
            {
                assertEquals(Errno.EAGAIN.negated(), n, "readErr");
                assertTrue(System.nanoTime() - deadline < 0, "no error completion before the deadline");
                progress();
            }
        }

        void progress()
        {
            domainA.progress();
            domainB.progress();
            domainC.progress();
            Thread.yield();
        }

        @Override
        public void close()
        {
            a.close();
            b.close();
            c.close();
            cqA.close();
            cqB.close();
            cqC.close();
            counterB.close();
            avA.close();
            avB.close();
            avC.close();
            domainA.close();
            domainB.close();
            domainC.close();
            fabric.close();
        }
    }
}
