package io.jfabric.provider.aeron;

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
import io.jfabric.stat.CountersFile;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.CountersManager;

import java.util.function.ObjLongConsumer;

/**
 * One fabric on a driver of the test's own (its directory and liveness timeout given): a domain, a tagged RDM
 * endpoint, a CQ. The liveness tests (`AeronOneSidedDownTest`, `AeronWronglyDownTest`) give each side a driver so
 * that the paths between them can be cut.
 */
final class AeronDriverSide implements AutoCloseable
{
    final Fabric fabric;
    final Domain domain;
    final AddressVector av;
    final CompletionQueue cq;
    final Endpoint ep;
    /** The label suffix ({@code " id=<domain id>"}) of this side's domain counters. */
    private final String domainId;

    AeronDriverSide(final String dir, final long livenessMs, final Progress progress)
    {
        System.setProperty(AeronConfiguration.DIR_PROP, dir);
        System.setProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP, Long.toString(livenessMs));
        final Info hints = Info.builder().caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build()).build();
        final Info info = Fabric.getInfo(hints).get(0);
        fabric = Fabric.open(info);
        domain = fabric.domain(info, "yield");
        av = domain.addressVector(AvType.TABLE, 4);
        cq = domain.completionQueue(8192, CqFormat.TAGGED);
        ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
        domainId = " id=" + newestDomainId();
    }

    /**
     * @return the highest domain id among this process's {@code aeron peers down} counters: the domain opened last
     * (ids are given in order and never reused).
     */
    private static long newestDomainId()
    {
        final long[] newest = {-1};
        forEachPeersDown((label, value) ->
        {
            final int at = label.lastIndexOf(" id=");
            newest[0] = Math.max(newest[0], Long.parseLong(label.substring(at + 4).trim()));
        });
        return newest[0];
    }

    /**
     * @return this side's domain's {@code aeron peers down} counter: its own falls of the peer, and the peer's falls
     * it mirrored.
     */
    long ownPeersDown()
    {
        final long[] sum = new long[1];
        forEachPeersDown((label, value) ->
        {
            if (label.endsWith(domainId))
            {
                sum[0] += value;
            }
        });
        return sum[0];
    }

    private static void forEachPeersDown(final ObjLongConsumer<String> consumer)
    {
        final CountersFile file = CountersFile.acquire();
        try
        {
            final CountersManager counters = file.countersManager();
            final String pid = " pid=" + ProcessHandle.current().pid() + " ";
            counters.forEach((id, type, key, label) ->
            {
                if (label.startsWith("aeron peers down") && label.contains(pid))
                {
                    consumer.accept(label, counters.getCounterValue(id));
                }
            });
        }
        finally
        {
            file.release();
        }
    }

    /**
     * @return the sum of the {@code aeron peers down} counters of this process's live domains.
     */
    static long peersDown()
    {
        final long[] sum = new long[1];
        forEachPeersDown((label, value) -> sum[0] += value);
        return sum[0];
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(ep, cq, av, domain, fabric);
    }
}
