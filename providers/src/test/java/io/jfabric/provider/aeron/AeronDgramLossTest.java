package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ext.DebugReceiveChannelEndpoint;
import io.aeron.driver.ext.RandomLossGenerator;
import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * DGRAM over a lossy network, in one process: a media driver whose receive endpoints drop 10 % of the data packets
 * they receive (Aeron's {@link DebugReceiveChannelEndpoint} with a {@link RandomLossGenerator}), two fabrics over UDP
 * loopback. A sender floods {@link #MESSAGES} tagged 8-byte sequence numbers as datagrams; the receiver reports what
 * arrived: in order, no duplicate, fewer than sent (the {@code reliable=false} stream retransmits nothing), and
 * nothing hangs: every send was taken, the receiver stops after a quiet period. Bounded by a watchdog, never timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AeronDgramLossTest
{
    /** Datagrams sent. */
    static final int MESSAGES = 20_000;
    private static final double LOSS = 0.10;
    private static final int POSTED = 256;
    private static final long QUIET_NS = TimeUnit.SECONDS.toNanos(2);
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
        System.clearProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP);
    }

    @Test
    void shouldReportTheDatagramsThatArrivedInOrderWithoutDuplicatesAndNeverHangWhenTenPercentAreLost()
    {
        try (Side receiver = new Side();
            Side sender = new Side())
        {
            final long dest = sender.av.insert(receiver.ep.name());
            receiver.av.insert(sender.ep.name());
            final UnsafeBuffer[] slots = new UnsafeBuffer[POSTED];
            for (int i = 0; i < POSTED; i++)
            {
                slots[i] = AeronNode.direct(8);
                assertEquals(0, receiver.ep.trecv(slots[i], 0, 8, AddressVector.ADDR_UNSPEC, 0, -1L, i));
            }
            final UnsafeBuffer value = AeronNode.direct(8);
            final CompletionEntry entry = new CompletionEntry();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
            int sent = 0;
            long last = -1;
            int received = 0;
            long lastArrivalNs = System.nanoTime();
            while (sent < MESSAGES || System.nanoTime() - lastArrivalNs < QUIET_NS)
            {
                for (int burst = 0; burst < 64 && sent < MESSAGES; burst++)
                {
                    value.putLong(0, sent);
                    final int rc = sender.ep.tinject(value, 0, 8, dest, sent);
                    if (Errno.EAGAIN.negated() == rc)
                    {
                        break;
                    }
                    assertEquals(0, rc, "tinject");
                    sent++;
                }
                assertTrue(Errno.EAVAIL.negated() != sender.cq.read(entry), "a datagram send failed");
                int n;
                while (1 == (n = receiver.cq.read(entry)))
                {
                    final int slot = (int) entry.context();
                    final long seq = slots[slot].getLong(0);
                    assertEquals(entry.tag(), seq, "payload and tag of one datagram");
                    if (seq <= last)
                    {
                        fail("datagram " + seq + " after " + last + " (duplicated or reordered)");
                    }
                    last = seq;
                    received++;
                    lastArrivalNs = System.nanoTime();
                    assertEquals(0, receiver.ep.trecv(slots[slot], 0, 8, AddressVector.ADDR_UNSPEC, 0, -1L, slot));
                }
                assertTrue(Errno.EAVAIL.negated() != n, "receiver error completion");
                assertTrue(System.nanoTime() - deadline < 0, "stalled: sent " + sent + ", received " + received);
                Thread.yield();
            }
            final long lost;
            synchronized (dropped)
            {
                lost = dropped[0];
            }
            assertEquals(MESSAGES, sent);
            assertTrue(lost > 0, "the loss generator dropped no packet");
            assertTrue(received > 0 && received < MESSAGES, "received " + received + " of " + MESSAGES);
            System.out.println("aeron dgram loss: " + received + " of " + MESSAGES + " datagrams arrived, in order, " +
                "none twice, with " + lost + " packets dropped by Aeron's loss generator (10 %)");
        }
    }

    /**
     * One fabric on the lossy driver: a domain (AUTO progress), a DGRAM endpoint, a CQ.
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
                .epAttr(EpAttr.builder().type(EndpointType.DGRAM).build())
                .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build())
                .domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build()).build();
            final Info info = Fabric.getInfo(hints).get(0);
            assertEquals(EndpointType.DGRAM, info.epAttr().type());
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
