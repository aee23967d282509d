package io.jfabric.bench.runtime;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
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
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Two inproc domains with one tagged endpoint each, driven from one application thread: one {@link #roundTrip()}
 * is tsend A→B, B's receive completion, tsend B→A, A's receive completion. With MANUAL progress the thread also
 * runs both domain agents; with AUTO each domain has its agent thread (idle strategy by name).
 * <p>
 * Threading: one application thread.
 */
public final class InprocPingPong implements AutoCloseable
{
    private static final long TAG = 0x42;

    private final Fabric fabric;
    private final Domain domainA;
    private final Domain domainB;
    private final AddressVector avA;
    private final AddressVector avB;
    private final CompletionQueue cqA;
    private final CompletionQueue cqB;
    private final Endpoint a;
    private final Endpoint b;
    private final long toB;
    private final long toA;
    private final UnsafeBuffer txA;
    private final UnsafeBuffer rxA;
    private final UnsafeBuffer txB;
    private final UnsafeBuffer rxB;
    private final int size;
    private final CompletionEntry entry = new CompletionEntry();

    /**
     * Open the pair.
     *
     * @param progress     MANUAL or AUTO.
     * @param idleStrategy for AUTO: backoff, spin, yield, sleep.
     * @param size         message size in bytes.
     */
    public InprocPingPong(final Progress progress, final String idleStrategy, final int size)
    {
        final Info hints = Info.builder()
            .caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName("inproc").build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build();
        final Info info = Fabric.getInfo(hints).get(0);
        this.size = size;
        fabric = Fabric.open(info);
        domainA = fabric.domain(info, idleStrategy);
        domainB = fabric.domain(info, idleStrategy);
        avA = domainA.addressVector(AvType.TABLE, 1);
        avB = domainB.addressVector(AvType.TABLE, 1);
        cqA = domainA.completionQueue(64, CqFormat.TAGGED);
        cqB = domainB.completionQueue(64, CqFormat.TAGGED);
        a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.SELECTIVE_COMPLETION)
            .bind(cqA, Flags.RECV).enable();
        b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.SELECTIVE_COMPLETION)
            .bind(cqB, Flags.RECV).enable();
        toB = avA.insert(b.name());
        toA = avB.insert(a.name());
        txA = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        rxA = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        txB = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        rxB = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
    }

    /**
     * One tagged round trip (sends complete selectively, so only receives produce completions).
     *
     * @return the tag of the echoed message.
     */
    public long roundTrip()
    {
        final int n = size;
        post(b.trecv(rxB, 0, n, AddressVector.ADDR_UNSPEC, TAG, 0, 1));
        post(a.tsend(txA, 0, n, toB, TAG, 2));
        await(cqB, domainA);
        post(a.trecv(rxA, 0, n, AddressVector.ADDR_UNSPEC, TAG, 0, 3));
        post(b.tsend(txB, 0, n, toA, TAG, 4));
        await(cqA, domainB);
        return entry.tag();
    }

    private static void post(final int result)
    {
        if (0 != result)
        {
            throw new IllegalStateException("post failed: " + result);
        }
    }

    private void await(final CompletionQueue cq, final Domain peer)
    {
        while (1 != cq.read(entry))
        {
            peer.progress();
        }
    }

    /**
     * Close everything (stops AUTO agent threads).
     */
    @Override
    public void close()
    {
        a.close();
        b.close();
        cqA.close();
        cqB.close();
        avA.close();
        avB.close();
        domainA.close();
        domainB.close();
        fabric.close();
    }
}
