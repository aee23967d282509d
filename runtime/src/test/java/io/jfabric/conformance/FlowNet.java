package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Test fixture of the flow-control suite ({@link FlowControlConformance}): {@code n} domains of the provider under
 * test in this JVM, one RDM endpoint each with its own transmit CQ and receive CQ (TAGGED format), table
 * AVs in which node {@code j} has the same {@code fi_addr} {@code j} everywhere. Node 0 is the receiver of the
 * tests, the others its peers.
 */
public final class FlowNet implements AutoCloseable
{
    public final Fabric fabric;
    public final Domain[] domains;
    public final Endpoint[] eps;
    public final CompletionQueue[] txCqs;
    public final CompletionQueue[] rxCqs;
    public final AddressVector[] avs;
    private final boolean[] closed;

    /**
     * @param factory  the provider under test.
     * @param progress the data progress of every domain.
     * @param n        nodes.
     * @param rxCqSize size of node 0's receive CQ.
     */
    public FlowNet(final PairFactory factory, final Progress progress, final int n, final int rxCqSize)
    {
        final Info[] infos = new Info[n];
        for (int i = 0; i < n; i++)
        {
            infos[i] = factory.info(Info.builder()
                .caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC | Flags.DIRECTED_RECV)
                .domainAttr(DomainAttr.builder().dataProgress(progress).build())
                .build());
        }
        fabric = Fabric.open(infos[0]);
        domains = new Domain[n];
        eps = new Endpoint[n];
        txCqs = new CompletionQueue[n];
        rxCqs = new CompletionQueue[n];
        avs = new AddressVector[n];
        closed = new boolean[n];
        for (int i = 0; i < n; i++)
        {
            domains[i] = fabric.domain(infos[i], "yield");
            avs[i] = domains[i].addressVector(AvType.TABLE, n);
            txCqs[i] = domains[i].completionQueue(4096, CqFormat.TAGGED);
            rxCqs[i] = domains[i].completionQueue(0 == i ? rxCqSize : 4096, CqFormat.TAGGED);
            eps[i] = domains[i].endpoint(infos[i]).bind(avs[i], 0).bind(txCqs[i], Flags.TRANSMIT)
                .bind(rxCqs[i], Flags.RECV).enable();
        }
        for (int i = 0; i < n; i++)
        {
            for (int j = 0; j < n; j++)
            {
                assertTrue(j == avs[i].insert(eps[j].name()), "fi_addr " + j + " at node " + i);
            }
        }
    }

    /**
     * @return the domains still open (what a MANUAL-progress test drives).
     */
    public Domain[] open()
    {
        int count = 0;
        for (final boolean c : closed)
        {
            count += c ? 0 : 1;
        }
        final Domain[] open = new Domain[count];
        int k = 0;
        for (int i = 0; i < domains.length; i++)
        {
            if (!closed[i])
            {
                open[k++] = domains[i];
            }
        }
        return open;
    }

    /**
     * Close node {@code i} as a peer going away would (its deferred sends die with it).
     */
    public void close(final int i)
    {
        if (closed[i])
        {
            return;
        }
        closed[i] = true;
        eps[i].close();
        txCqs[i].close();
        rxCqs[i].close();
        avs[i].close();
        domains[i].close();
    }

    @Override
    public void close()
    {
        for (int i = domains.length - 1; i >= 0; i--)
        {
            close(i);
        }
        fabric.close();
    }
}
