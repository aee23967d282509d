package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ext.DebugReceiveChannelEndpoint;
import io.aeron.driver.ext.RandomLossGenerator;
import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
            final long elapsedMs = AeronTests.streamInOrder(receiver.ep, receiver.cq,
                new Endpoint[]{first.ep, second.ep}, new CompletionQueue[]{first.cq, second.cq}, dest, MESSAGES,
                TimeUnit.SECONDS.toNanos(100), () -> "loss generator");
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
