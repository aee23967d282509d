package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
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
import io.jfabric.MrMode;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failures through the API: a peer whose node is gone and a peer that never answers the connect end in error
 * completions within a bounded wait (the completion helpers' 20 s watchdog), never in a hang.
 */
class GniFailureTest
{
    private static Info info()
    {
        return Fabric.getInfo(Info.builder().caps(Flags.MSG | Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).build())
            .domainAttr(DomainAttr.builder().mrMode(MrMode.MMU_NOTIFY).dataProgress(Progress.AUTO).build())
            .build()).get(0);
    }

    @Test
    void shouldFailOperationsToAPeerWhoseNodeIsGoneWithErrorCompletions()
    {
        final Info info = info();
        try (Fabric fabric = Fabric.open(info);
            Domain domainA = fabric.domain(info, "yield");
            AddressVector avA = domainA.addressVector(AvType.TABLE, 4);
            CompletionQueue cqA = domainA.completionQueue(64, CqFormat.TAGGED);
            Endpoint a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final Domain domainB = fabric.domain(info, "yield");
            final AddressVector avB = domainB.addressVector(AvType.TABLE, 4);
            final CompletionQueue cqB = domainB.completionQueue(64, CqFormat.TAGGED);
            final Endpoint b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable();
            final long toB = avA.insert(b.name());
            avB.insert(a.name());
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 1, 0, 10));
            assertEquals(0, a.tsend(pattern(64, 1), 0, 64, toB, 1, 1));
            assertEquals(1, one(cqA).context());
            assertEquals(10, one(cqB).context());

            // B's process "dies": its endpoint, queues and domain (its emulated node) go away.
            b.close();
            cqB.close();
            avB.close();
            domainB.close();

            // A rendezvous send waits for a FIN that never comes: the NIC reports the dead peer.
            final int size = 100_000;
            assertEquals(0, a.tsend(pattern(size, 2), 0, size, toB, 1, 2));
            final CompletionErrorEntry failed = error(cqA);
            assertEquals(2, failed.context());
            assertTrue(Errno.EIO.value() == failed.err() || Errno.ECANCELED.value() == failed.err(),
                "err " + failed.err());
            // Later operations to that peer fail too, at once or with an error completion.
            final int rc = a.tsend(pattern(64, 3), 0, 64, toB, 1, 3);
            if (0 == rc)
            {
                assertEquals(3, error(cqA).context());
            }
            else
            {
                assertTrue(rc < 0);
            }
        }
    }

    @Test
    void shouldFailOperationsWhoseConnectTimesOutWithEtimedout()
    {
        System.setProperty(GniConfiguration.CONNECT_TIMEOUT_PROP, "300");
        final Info info = info();
        try (Fabric fabric = Fabric.open(info);
            Domain domainA = fabric.domain(info, "yield");
            AddressVector avA = domainA.addressVector(AvType.TABLE, 4);
            CompletionQueue cqA = domainA.completionQueue(64, CqFormat.TAGGED);
            Endpoint a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable())
        {
            // A name no node answers: device 0x7FFF0000 is never handed out.
            final long nobody = avA.insert(GniName.binary(GniName.key(0x7FFF_0000, 1, 0),
                GniConfiguration.DEFAULT_COOKIE));
            assertEquals(0, a.tsend(pattern(64, 1), 0, 64, nobody, 1, 1));
            assertEquals(0, a.tsend(pattern(64, 1), 0, 64, nobody, 1, 2));
            final CompletionErrorEntry first = error(cqA);
            assertEquals(1, first.context());
            assertEquals(Errno.ETIMEDOUT.value(), first.err());
            final CompletionErrorEntry second = error(cqA);
            assertEquals(2, second.context());
            assertEquals(Errno.ETIMEDOUT.value(), second.err());
            final CompletionEntry none = new CompletionEntry();
            assertEquals(Errno.EAGAIN.negated(), cqA.read(none));
        }
        finally
        {
            System.clearProperty(GniConfiguration.CONNECT_TIMEOUT_PROP);
        }
    }
}
