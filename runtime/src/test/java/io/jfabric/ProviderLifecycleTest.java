package io.jfabric;

import io.jfabric.agent.FlowControl;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static io.jfabric.ProviderCapabilitiesTest.described;
import static io.jfabric.ProviderCapabilitiesTest.errnoOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The SPI lifecycle hooks as the runtime drives them, seen by the test-only {@link DescribedTestProvider}, which
 * records every hook per domain name: fabric open/close on the provider, domain open/close, endpoint open/close on
 * the domain transport; closing in the reverse order of opening, and a step that fails after an earlier hook closing
 * that hook's object.
 */
@Timeout(60)
class ProviderLifecycleTest
{
    private static final long CAPS = Flags.MSG | Flags.TAGGED;

    @Test
    void shouldOpenFabricDomainAndEndpointsAndCloseThemInReverseOrder()
    {
        final Info info = described("life-order", CAPS);
        final Fabric fabric = Fabric.open(info);
        assertEquals(List.of("openFabric"), DescribedTestProvider.events("life-order"));
        final Domain domain = fabric.domain(null);
        final Endpoint first = domain.endpoint(null);
        final Endpoint second = domain.endpoint(null);
        assertEquals(List.of("openFabric", "openDomain life-order", "openEndpoint 0", "openEndpoint 1"),
            DescribedTestProvider.events("life-order"));

        // The runtime refuses out-of-order closes before any hook runs.
        assertEquals(Errno.EBUSY, errnoOf(domain::close));
        assertEquals(Errno.EBUSY, errnoOf(fabric::close));
        second.close();
        first.close();
        first.close();
        domain.close();
        fabric.close();
        fabric.close();
        assertEquals(List.of("openFabric", "openDomain life-order", "openEndpoint 0", "openEndpoint 1",
            "closeEndpoint 1", "closeEndpoint 0", "closeDomain", "closeFabric"),
            DescribedTestProvider.events("life-order"));
    }

    @Test
    void shouldPairEveryDomainAndEndpointOpenWithOneCloseAroundTraffic()
    {
        try (InprocPair p = new InprocPair(described("life-traffic", CAPS), 0, CqFormat.TAGGED, 16))
        {
            final UnsafeBuffer rx = InprocPair.direct(8);
            assertEquals(0, p.b.trecv(rx, 0, 8, AddressVector.ADDR_UNSPEC, 1, 0, 11));
            assertEquals(0, p.a.tsend(InprocPair.pattern(8, 1), 0, 8, p.addrBFromA, 1, 12));
            assertEquals(11, InprocPair.one(p.cqB).context());
            assertEquals(12, InprocPair.one(p.cqA).context());
        }
        // Both domains of the pair share the info's name: each hook twice, closes after opens.
        final List<String> events = DescribedTestProvider.events("life-traffic");
        assertEquals(List.of("openFabric", "openDomain life-traffic", "openDomain life-traffic", "openEndpoint 0",
            "openEndpoint 0", "closeEndpoint 0", "closeEndpoint 0", "closeDomain", "closeDomain", "closeFabric"),
            events);
    }

    @Test
    void shouldLeaveNothingOpenWhenTheFabricHookRefuses()
    {
        final Info info = described("refuse-fabric", CAPS);
        assertEquals(Errno.EACCES, errnoOf(() -> Fabric.open(info)));
        assertEquals(List.of("openFabric refused"), DescribedTestProvider.events("refuse-fabric"));
    }

    @Test
    void shouldNotCloseAnEndpointWhoseOpenHookRefusedAndKeepTheDomainClosable()
    {
        final Info info = described("life-refuse-ep", CAPS);
        try (Fabric fabric = Fabric.open(info); Domain domain = fabric.domain(null))
        {
            final OpenOps ops = domain.openOps(DescribedTestProvider.DOMAIN_OPS);
            ops.set(0, true);
            assertEquals(Errno.EBUSY, errnoOf(() -> domain.endpoint(null)));
            ops.set(0, false);
            // The refused endpoint left no child behind; the next one opens with the next index.
            try (Endpoint endpoint = domain.endpoint(null))
            {
                assertEquals(1, endpoint.index());
            }
        }
        assertEquals(List.of("openFabric", "openDomain life-refuse-ep", "openEndpoint 0 refused", "openEndpoint 1",
            "closeEndpoint 1", "closeDomain", "closeFabric"), DescribedTestProvider.events("life-refuse-ep"));
    }

    @Test
    void shouldCloseTheTransportWhenTheDomainFailsAfterItOpened()
    {
        final Info info = described("life-fail-domain", CAPS);
        try (Fabric fabric = Fabric.open(info))
        {
            System.setProperty(FlowControl.CREDITS_PROP, "lots");
            try
            {
                final FabricException refused = assertThrows(FabricException.class, () -> fabric.domain(null));
                assertEquals(Errno.EINVAL, refused.errno());
                assertTrue(refused.getMessage().contains(FlowControl.CREDITS_PROP), refused.getMessage());
            }
            finally
            {
                System.clearProperty(FlowControl.CREDITS_PROP);
            }
        }
        // The transport opened before the agent failed, so it was closed; the fabric then closed (no child left).
        assertEquals(List.of("openFabric", "openDomain life-fail-domain", "closeDomain", "closeFabric"),
            DescribedTestProvider.events("life-fail-domain"));
    }
}
