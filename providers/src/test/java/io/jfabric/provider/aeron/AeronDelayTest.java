package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
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
import org.agrona.nio.TransportPoller;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * RDM and DGRAM over links with netem's {@code delay 5ms 2ms} (and {@code loss 10%}), in one process: a media
 * driver whose UDP endpoints hold every datagram they read for 3 to 7 ms, uniformly drawn, so that datagrams arrive
 * late and out of order ({@link DelayedLinks}: data, setup and RTT frames at the receiving endpoints, status
 * messages and NAKs at the sending ones), shared by three fabrics over UDP loopback. Two senders stream tagged
 * 8-byte sequence numbers to one receiver. RDM: every message exactly once and in order per sender. DGRAM: what
 * arrived is reported, in order per sender, never twice, and the receiver stops after a quiet period. The delay
 * lines' counters prove datagrams were held, overtaken and (with loss) dropped. Bounded by deadlines and the
 * class's watchdog, never timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AeronDelayTest
{
    /** RDM messages per sender. */
    static final int MESSAGES = 100_000;
    /** Datagrams per sender. */
    static final int DATAGRAMS = 20_000;
    private static final double DELAY_MS = 5;
    private static final double JITTER_MS = 2;
    private static final double LOSS = 0.10;
    private static final int POSTED = 256;
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(90);
    private static final long QUIET_NS = TimeUnit.SECONDS.toNanos(2);
    /** Not a liveness test: a long timeout, so that a starved machine does not report a sender down. */
    private static final long LIVENESS_MS = 10_000;
    private MediaDriver driver;
    private DelayedLinks links;

    @AfterEach
    void stopDriver()
    {
        AeronTests.stopSharedDriver(driver);
    }

    @Test
    void shouldDeliverEveryMessageOnceAndInOrderPerSenderWhenDatagramsAreDelayedFiveMsWithTwoMsJitter()
    {
        startDelayingDriver(0);
        streamRdm("delay 5ms 2ms");
    }

    @Test
    void shouldDeliverEveryMessageOnceAndInOrderPerSenderWhenDatagramsAreDelayedWithJitterAndTenPercentLost()
    {
        startDelayingDriver(LOSS);
        streamRdm("delay 5ms 2ms loss 10%");
        assertTrue(links.dropped() > 100, "dropped " + links.dropped());
    }

    @Test
    void shouldReportTheDatagramsThatArrivedInOrderWithoutDuplicatesWhenDelayedWithJitter()
    {
        startDelayingDriver(0);
        streamDgram("delay 5ms 2ms");
    }

    @Test
    void shouldReportTheDatagramsThatArrivedInOrderWithoutDuplicatesWhenDelayedWithJitterAndTenPercentLost()
    {
        startDelayingDriver(LOSS);
        final int[] received = streamDgram("delay 5ms 2ms loss 10%");
        assertTrue(links.dropped() > 100, "dropped " + links.dropped());
        assertTrue(received[0] < DATAGRAMS && received[1] < DATAGRAMS, "every datagram arrived through 10 % loss");
    }

    private void startDelayingDriver(final double loss)
    {
        // UDP through the delaying endpoints, not aeron:ipc between two clients of one driver.
        System.setProperty(AeronConfiguration.IPC_PROP, "false");
        System.setProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP, Long.toString(LIVENESS_MS));
        final String dir = AeronFabricBackend.embeddedDirectory();
        links = new DelayedLinks(DELAY_MS, JITTER_MS, loss);
        driver = MediaDriver.launch(links.install(AeronFabricBackend.driverContext(dir, LIVENESS_MS)));
        System.setProperty(AeronConfiguration.DIR_PROP, dir);
    }

    private void checkLinks()
    {
        assertTrue(links.held() > 1000, "the delay lines held " + links.held() + " datagrams");
        assertTrue(links.overtaken() > 0, "no datagram overtook another: no jitter");
        // Each endpoint is polled on every duty cycle (a held datagram leaves on time) only up to this many.
        assertTrue(links.mostEndpoints() <= TransportPoller.ITERATION_THRESHOLD,
            links.mostEndpoints() + " endpoints on one poller");
    }

    private void streamRdm(final String what)
    {
        try (Side receiver = new Side(EndpointType.RDM);
            Side first = new Side(EndpointType.RDM);
            Side second = new Side(EndpointType.RDM))
        {
            final Side[] senders = {first, second};
            final long[] dest = connect(receiver, senders);
            final long elapsedMs = AeronTests.streamInOrder(receiver.ep, receiver.cq,
                new Endpoint[]{first.ep, second.ep}, new CompletionQueue[]{first.cq, second.cq}, dest, MESSAGES,
                DEADLINE_NS, links::toString);
            checkLinks();
            System.out.println("aeron " + what + ": 2 x " + MESSAGES + " messages delivered once and in order in " +
                elapsedMs + " ms (" + links + ")");
        }
    }

    /**
     * @return the datagrams that arrived from each sender.
     */
    private int[] streamDgram(final String what)
    {
        try (Side receiver = new Side(EndpointType.DGRAM);
            Side first = new Side(EndpointType.DGRAM);
            Side second = new Side(EndpointType.DGRAM))
        {
            final Side[] senders = {first, second};
            final long[] dest = connect(receiver, senders);
            final UnsafeBuffer[] slots = post(receiver, 0, -1L);
            final long[] last = {-1, -1};
            final int[] received = new int[2];
            final int[] sent = new int[2];
            final CompletionEntry entry = new CompletionEntry();
            final long startNs = System.nanoTime();
            long lastArrivalNs = startNs;
            while (sent[0] < DATAGRAMS || sent[1] < DATAGRAMS || System.nanoTime() - lastArrivalNs < QUIET_NS)
            {
                for (int s = 0; s < 2; s++)
                {
                    sent[s] += inject(senders[s], dest[s], sent[s], DATAGRAMS, ((long) s << 32) | sent[s], 1);
                    assertTrue(Errno.EAVAIL.negated() != senders[s].cq.read(entry), "a datagram send failed");
                }
                int n;
                while (1 == (n = receiver.cq.read(entry)))
                {
                    final int slot = (int) entry.context();
                    final int from = (int) (entry.tag() >>> 32);
                    final long seq = slots[slot].getLong(0);
                    assertEquals(entry.tag() & 0xFFFF_FFFFL, seq, "payload and tag of one datagram");
                    if (seq <= last[from])
                    {
                        fail("sender " + from + ": datagram " + seq + " after " + last[from] +
                            " (duplicated or reordered)");
                    }
                    last[from] = seq;
                    received[from]++;
                    lastArrivalNs = System.nanoTime();
                    assertEquals(0, receiver.ep.trecv(slots[slot], 0, 8, AddressVector.ADDR_UNSPEC, 0, -1L, slot));
                }
                assertTrue(Errno.EAVAIL.negated() != n, "receiver error completion");
                assertTrue(System.nanoTime() - startNs < DEADLINE_NS, "stalled: sent " + sent[0] + ", " + sent[1] +
                    ", received " + received[0] + ", " + received[1] + " (" + links + ")");
                Thread.yield();
            }
            assertArrayEquals(new int[]{DATAGRAMS, DATAGRAMS}, sent);
            assertTrue(received[0] > 0 && received[1] > 0, "received " + received[0] + " and " + received[1]);
            checkLinks();
            System.out.println("aeron dgram " + what + ": " + received[0] + " and " + received[1] + " of 2 x " +
                DATAGRAMS + " datagrams arrived, in order, none twice (" + links + ")");
            return received;
        }
    }

    private static long[] connect(final Side receiver, final Side[] senders)
    {
        final long[] dest = new long[senders.length];
        for (int s = 0; s < senders.length; s++)
        {
            dest[s] = senders[s].av.insert(receiver.ep.name());
            receiver.av.insert(senders[s].ep.name());
        }
        return dest;
    }

    private static UnsafeBuffer[] post(final Side receiver, final long tag, final long ignore)
    {
        final UnsafeBuffer[] slots = new UnsafeBuffer[POSTED];
        for (int i = 0; i < POSTED; i++)
        {
            slots[i] = AeronNode.direct(8);
            assertEquals(0, receiver.ep.trecv(slots[i], 0, 8, AddressVector.ADDR_UNSPEC, tag, ignore, i));
        }
        return slots;
    }

    /**
     * Inject up to 64 sequence numbers from {@code from} on, until back-pressure; the tag of the i-th is
     * {@code tag + i * tagStep}.
     *
     * @return how many were taken.
     */
    private static int inject(
        final Side sender, final long dest, final int from, final int total, final long tag, final int tagStep)
    {
        final UnsafeBuffer value = sender.value;
        int taken = 0;
        while (taken < 64 && from + taken < total)
        {
            value.putLong(0, from + taken);
            final int rc = sender.ep.tinject(value, 0, 8, dest, tag + (long) taken * tagStep);
            if (Errno.EAGAIN.negated() == rc)
            {
                break;
            }
            assertEquals(0, rc, "tinject");
            taken++;
        }
        return taken;
    }

    /**
     * One fabric on the delaying driver: a domain (AUTO progress), an endpoint of the given type, a CQ.
     */
    private static final class Side implements AutoCloseable
    {
        final Fabric fabric;
        final Domain domain;
        final AddressVector av;
        final CompletionQueue cq;
        final Endpoint ep;
        final UnsafeBuffer value = AeronNode.direct(8);

        Side(final EndpointType type)
        {
            final Info hints = Info.builder().caps(Flags.TAGGED)
                .epAttr(EpAttr.builder().type(type).build())
                .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build())
                .domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build()).build();
            final Info info = Fabric.getInfo(hints).get(0);
            assertEquals(type, info.epAttr().type());
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
