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
    }

    /**
     * @return the sum of the {@code aeron peers down} counters of this process's live domains.
     */
    static long peersDown()
    {
        final CountersFile file = CountersFile.acquire();
        try
        {
            final CountersManager counters = file.countersManager();
            final String pid = " pid=" + ProcessHandle.current().pid() + " ";
            final long[] sum = new long[1];
            counters.forEach((id, type, key, label) ->
            {
                if (label.startsWith("aeron peers down") && label.contains(pid))
                {
                    sum[0] += counters.getCounterValue(id);
                }
            });
            return sum[0];
        }
        finally
        {
            file.release();
        }
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(ep, cq, av, domain, fabric);
    }
}
