package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.OpenOps;

import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two gni domains whose {@code FI_GNI_DOMAIN_OPS_1} values are set before their first endpoint opens (when upstream
 * allocates the NIC and reads them), then one endpoint each with an AV and a CQ: endpoint {@link #a} sends to
 * {@link #b} at {@link #addrBFromA}.
 */
final class GniOptionPair implements AutoCloseable
{
    final Fabric fabric;
    final Domain domainA;
    final Domain domainB;
    final OpenOps opsA;
    final OpenOps opsB;
    final AddressVector avA;
    final AddressVector avB;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final Endpoint a;
    final Endpoint b;
    final long addrBFromA;

    /**
     * @param info    both domains' and endpoints' info.
     * @param options called with each domain's extension (A's, then B's) before any endpoint opens.
     */
    GniOptionPair(final Info info, final Consumer<OpenOps> options)
    {
        fabric = Fabric.open(info);
        domainA = fabric.domain(info, "yield");
        domainB = fabric.domain(info, "yield");
        opsA = domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
        opsB = domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
        options.accept(opsA);
        options.accept(opsB);
        avA = domainA.addressVector(AvType.TABLE, 4);
        avB = domainB.addressVector(AvType.TABLE, 4);
        cqA = domainA.completionQueue(1024, CqFormat.TAGGED);
        cqB = domainB.completionQueue(1024, CqFormat.TAGGED);
        a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
        b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable();
        addrBFromA = avA.insert(b.name());
        assertEquals(0, avB.insert(a.name()));
    }

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
