package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ext.DebugReceiveChannelEndpoint;
import io.aeron.driver.ext.RandomLossGenerator;
import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * RDM over a lossy network, in one process: a media driver whose receive endpoints drop 10 % of the data frames
 * they receive (Aeron's {@link DebugReceiveChannelEndpoint} with a {@link RandomLossGenerator}), shared by three
 * fabrics over UDP loopback. Two senders stream {@link #MESSAGES} tagged 8-byte sequence numbers each to one
 * receiver; every message arrives exactly once and in order per sender (Aeron's NAK-driven retransmission), and the
 * driver's loss counter proves frames were really dropped. Bounded by a watchdog, never timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AeronLossTest
{
    /** Messages per sender. */
    static final int MESSAGES = 100_000;
    private static final double LOSS = 0.10;
    private static final long STREAM_TAG = 5L << 56;
    private static final int POSTED = 256;
    /** Not a liveness test: a long timeout, so that a starved machine does not report a sender down. */
    private static final long LIVENESS_MS = 10_000;
    private MediaDriver driver;
    private final RandomLossGenerator loss = new RandomLossGenerator(LOSS);
    private final long[] dropped = new long[1];

    @BeforeEach
    void startLossyDriver()
    {
        // UDP through the lossy receive endpoints, not aeron:ipc between two clients of one driver.
        System.setProperty(AeronConfiguration.IPC_PROP, "false");
        System.setProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP, Long.toString(LIVENESS_MS));
        final String dir = AeronFabricBackend.embeddedDirectory();
        final MediaDriver.Context context = AeronFabricBackend.driverContext(dir, LIVENESS_MS);
        context.receiveChannelEndpointSupplier((channel, dispatcher, status, ctx) ->
            new DebugReceiveChannelEndpoint(channel, dispatcher, status, ctx,
                (address, buffer, length) ->
                {
                    final boolean drop = loss.shouldDropFrame(address, buffer, length);
                    if (drop)
                    {
                        synchronized (dropped)
                        {
                            dropped[0]++;
                        }
                    }
                    return drop;
                },
                (address, buffer, length) -> false));
        driver = MediaDriver.launch(context);
        System.setProperty(AeronConfiguration.DIR_PROP, dir);
    }

    @AfterEach
    void stopDriver()
    {
        AeronTests.stopSharedDriver(driver);
    }

    @Test
    void shouldDeliverEveryMessageOnceAndInOrderPerSenderWhenTenPercentOfTheFramesAreLost()
    {
        try (Side receiver = new Side();
            Side first = new Side();
            Side second = new Side())
        {
            final Side[] senders = {first, second};
            final long[] dest = new long[2];
            for (int s = 0; s < 2; s++)
            {
                dest[s] = senders[s].av.insert(receiver.ep.name());
                receiver.av.insert(senders[s].ep.name());
            }
            final UnsafeBuffer[] slots = new UnsafeBuffer[POSTED];
            for (int i = 0; i < POSTED; i++)
            {
                slots[i] = AeronNode.direct(8);
                assertEquals(0, receiver.ep.trecv(slots[i], 0, 8, AddressVector.ADDR_UNSPEC, STREAM_TAG, 0xFF, i));
            }
            final long[] next = new long[2];
            final int[] sent = new int[2];
            final UnsafeBuffer value = AeronNode.direct(8);
            final CompletionEntry entry = new CompletionEntry();
            final CompletionErrorEntry error = new CompletionErrorEntry();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
            final long startNs = System.nanoTime();
            while (next[0] < MESSAGES || next[1] < MESSAGES)
            {
                for (int s = 0; s < 2; s++)
                {
                    for (int burst = 0; burst < 64 && sent[s] < MESSAGES; burst++)
                    {
                        value.putLong(0, sent[s]);
                        final int rc = senders[s].ep.tinject(value, 0, 8, dest[s], STREAM_TAG | s);
                        if (Errno.EAGAIN.negated() == rc)
                        {
                            break;
                        }
                        assertEquals(0, rc, "tinject");
                        sent[s]++;
                    }
                    if (Errno.EAVAIL.negated() == senders[s].cq.read(entry))
                    {
                        senders[s].cq.readErr(error);
                        fail("sender " + s + " error completion " + error.errno());
                    }
                }
                int n;
                while (1 == (n = receiver.cq.read(entry)))
                {
                    final int from = (int) (entry.tag() & 0xFF);
                    final int slot = (int) entry.context();
                    final long seq = slots[slot].getLong(0);
                    if (seq != next[from])
                    {
                        fail("sender " + from + ": message " + seq + " arrived when " + next[from] +
                            " was expected (lost, duplicated or reordered)");
                    }
                    next[from]++;
                    assertEquals(0, receiver.ep.trecv(slots[slot], 0, 8, AddressVector.ADDR_UNSPEC, STREAM_TAG,
                        0xFF, slot));
                }
                if (Errno.EAVAIL.negated() == n)
                {
                    receiver.cq.readErr(error);
                    fail("receiver error completion " + error.errno());
                }
                assertTrue(System.nanoTime() - deadline < 0, "stalled at " + next[0] + " and " + next[1] +
                    " of " + MESSAGES + " (sent " + sent[0] + ", " + sent[1] + ")");
            }
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertArrayEquals(new long[]{MESSAGES, MESSAGES}, next);
            final long lost;
            synchronized (dropped)
            {
                lost = dropped[0];
            }
            assertTrue(lost > 0, "the loss generator dropped no frame");
            System.out.println("aeron loss: 2 x " + MESSAGES + " messages delivered once and in order with " + lost +
                " data frames dropped by Aeron's loss generator (10 %) in " + elapsedMs + " ms");
        }
    }

    /**
     * One fabric on the lossy driver: a domain (AUTO progress), an endpoint, a CQ.
     */
    private static final class Side implements AutoCloseable
    {
        final Fabric fabric;
        final Domain domain;
        final AddressVector av;
        final CompletionQueue cq;
        final Endpoint ep;

        Side()
        {
            final Info hints = Info.builder().caps(Flags.TAGGED)
                .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build())
                .domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build()).build();
            final Info info = Fabric.getInfo(hints).get(0);
            fabric = Fabric.open(info);
            domain = fabric.domain(info, "yield");
            av = domain.addressVector(AvType.TABLE, 4);
            cq = domain.completionQueue(1024, CqFormat.TAGGED);
            ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
        }

        @Override
        public void close()
        {
            CloseHelper.quietCloseAll(ep, cq, av, domain, fabric);
        }
    }
}
