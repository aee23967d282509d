package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The domain agent over {@code io.jfabric.ring} command rings ({@value #COMMAND_QUEUE}{@code =slots}): the
 * whole suite passes that way too ({@code mvn verify -Djfabric.agent.commandQueue=slots}); this keeps the main
 * paths covered in every build: eager and rendezvous iov messages, back-pressure (a full CQ leaves commands in
 * the ring), streamed RMA, cancel.
 */
@Timeout(60)
public abstract class SlotQueueConformance extends Conformance
{
    /** The system property that picks the command ring of each domain agent (agrona or slots). */
    public static final String COMMAND_QUEUE = "jfabric.agent.commandQueue";

    /**
     * @param factory the provider under test.
     */
    protected SlotQueueConformance(final PairFactory factory)
    {
        super(factory);
    }

    private Pair slotPair(final Progress progress, final int cqSize)
    {
        final String previous = System.getProperty(COMMAND_QUEUE);
        System.setProperty(COMMAND_QUEUE, "slots");
        try
        {
            return pair(info(progress, 0, 0), 0, CqFormat.TAGGED, cqSize);
        }
        finally
        {
            if (null == previous)
            {
                System.clearProperty(COMMAND_QUEUE);
            }
            else
            {
                System.setProperty(COMMAND_QUEUE, previous);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCarryMessagesRmaAndCancelOverSlotRings(final Progress progress)
    {
        try (Pair p = slotPair(progress, 1024))
        {
            final int size = 300_001;
            final UnsafeBuffer whole = pattern(size, 3);
            final DirectBuffer[] iov = {new UnsafeBuffer(whole, 0, 7), new UnsafeBuffer(whole, 7, size - 7)};
            final UnsafeBuffer rx = direct(size);
            assertEquals(0, p.b.trecv(rx, 0, size, AddressVector.ADDR_UNSPEC, 4, 0, 1));
            assertEquals(0, p.a.tsendv(iov, 2, p.addrBFromA, 4, 2));
            assertEquals(1, one(p.cqB).context());
            assertPattern(rx, 0, size, 3);
            assertEquals(2, one(p.cqA).context());

            final UnsafeBuffer target = direct(size);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, size, Flags.REMOTE_WRITE | Flags.REMOTE_READ,
                9))
            {
                assertEquals(0, p.a.write(whole, 0, size, p.addrBFromA, 0, mr.key(), 3));
                assertEquals(3, one(p.cqA).context());
                assertPattern(target, 0, size, 3);
            }
            assertEquals(0, p.b.recv(direct(8), 0, 8, AddressVector.ADDR_UNSPEC, 4));
            assertEquals(0, p.b.cancel(4));
            assertEquals(Errno.ECANCELED, error(p.cqB).errno());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldLeaveSendsInTheRingWhileTheCqIsFullAndLoseNone(final Progress progress)
    {
        try (Pair p = slotPair(progress, 4))
        {
            final UnsafeBuffer tx = pattern(32, 5);
            int sent = 0;
            int received = 0;
            final CompletionEntry entry = new CompletionEntry();
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            final UnsafeBuffer rx = direct(32);
            // Receives and sends until EAGAIN, then drain, many times: nothing lost, nothing duplicated.
            while (received < 200)
            {
                if (sent < 200 && 0 == p.b.recv(rx, 0, 32, AddressVector.ADDR_UNSPEC, 1000 + sent))
                {
                    while (0 != p.a.send(tx, 0, 32, p.addrBFromA, sent))
                    {
                        p.cqA.read(entry);
                        Pair.progressAll();
                    }
                    sent++;
                }
                while (1 == p.cqB.read(entry))
                {
                    assertEquals(1000 + received, entry.context());
                    received++;
                }
                p.cqA.read(entry);
                Pair.progressAll();
                if (System.nanoTime() - deadline > 0)
                {
                    throw new AssertionError("sent " + sent + ", received " + received);
                }
            }
            assertPattern(rx, 0, 32, 5);
        }
    }
}
