package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Test fixture: two shm domains in this JVM ("a" and "b" plus a suffix), one RDM endpoint each, a TAGGED CQ per
 * endpoint, counters (sends of a, receives and remote writes of b), table AVs holding both addresses.
 */
final class ShmPair implements AutoCloseable
{
    final Fabric fabric;
    final Domain domainA;
    final Domain domainB;
    final AddressVector avA;
    final AddressVector avB;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final Counter sendCntrA;
    final Counter recvCntrB;
    final Counter remoteWriteCntrB;
    final Endpoint a;
    final Endpoint b;
    final long addrBFromA;
    final long addrAFromB;
    private boolean closedB;

    ShmPair(final Progress progress, final String suffix)
    {
        final Info infoA = ShmTests.info(progress, "a" + suffix);
        final Info infoB = ShmTests.info(progress, "b" + suffix);
        fabric = Fabric.open(infoA);
        domainA = fabric.domain(infoA, "yield");
        domainB = fabric.domain(infoB, "yield");
        avA = domainA.addressVector(AvType.TABLE, 4);
        avB = domainB.addressVector(AvType.TABLE, 4);
        cqA = domainA.completionQueue(4096, CqFormat.TAGGED);
        cqB = domainB.completionQueue(4096, CqFormat.TAGGED);
        sendCntrA = domainA.counter();
        recvCntrB = domainB.counter();
        remoteWriteCntrB = domainB.counter();
        a = domainA.endpoint(infoA).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).bind(sendCntrA, Flags.SEND)
            .enable();
        b = domainB.endpoint(infoB).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).bind(recvCntrB, Flags.RECV)
            .bind(remoteWriteCntrB, Flags.REMOTE_WRITE).enable();
        addrBFromA = avA.insert(b.name());
        addrAFromB = avB.insert(a.name());
        assertEquals(0, addrBFromA);
        assertEquals(0, addrAFromB);
    }

    Domain[] domains()
    {
        return closedB ? new Domain[]{domainA} : new Domain[]{domainA, domainB};
    }

    /**
     * Close b's side only (its domain goes away as a peer would).
     */
    void closeB()
    {
        b.close();
        cqB.close();
        recvCntrB.close();
        remoteWriteCntrB.close();
        avB.close();
        domainB.close();
        closedB = true;
    }

    @Override
    public void close()
    {
        a.close();
        cqA.close();
        sendCntrA.close();
        avA.close();
        if (!closedB)
        {
            closeB();
        }
        domainA.close();
        fabric.close();
    }
}
