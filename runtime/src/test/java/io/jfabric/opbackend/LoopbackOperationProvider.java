package io.jfabric.opbackend;

import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Info;
import io.jfabric.Version;
import io.jfabric.provider.inproc.InprocProvider;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.TransportProvider;

import java.util.List;

/**
 * A test-only provider, {@value #NAME}, plugged in at the operation level: its domains' transports carry no frames
 * but give the runtime an {@link io.jfabric.spi.OperationBackend} ({@link LoopbackOperationTransport}) that takes
 * the decoded send, RMA and atomic commands, hands each to the peer domain in the same JVM through a request ring,
 * where the peer's back-end delivers messages into its runtime's matching and executes RMA and atomics on its
 * registered memory through the runtime's registry checks, then answers so that the initiator completes.
 * <p>
 * Registered through {@code META-INF/services} of the test class path but invisible to getInfo (it offers no info):
 * a test opens it by name with {@link #info(Info)}, an inproc info renamed.
 * <p>
 * Threading: thread-safe.
 */
public final class LoopbackOperationProvider implements TransportProvider
{
    /** Provider name. */
    public static final String NAME = "oploop";

    /**
     * Built by the ServiceLoader.
     */
    public LoopbackOperationProvider()
    {
    }

    /**
     * inproc's first info for {@code hints}, renamed to this provider.
     *
     * @param hints the hints ({@code fabric_attr.prov_name} is replaced).
     * @return the info to open fabric, domains and endpoints with.
     */
    public static Info info(final Info hints)
    {
        final FabricAttr fabricAttr = hints.fabricAttr();
        final FabricAttr inprocAttr = (null == fabricAttr ? FabricAttr.builder() : fabricAttr.toBuilder())
            .provName(InprocProvider.NAME).build();
        final Info inproc = Fabric.getInfo(hints.toBuilder().fabricAttr(inprocAttr).build()).get(0);
        return inproc.toBuilder().fabricAttr(inproc.fabricAttr().toBuilder().provName(NAME).build()).build();
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public Version version()
    {
        return Version.of(0, 1);
    }

    /**
     * None: this provider is opened by name only, so that getInfo results of other tests never see it.
     *
     * @return an empty list.
     */
    @Override
    public List<Info> infos()
    {
        return List.of();
    }

    @Override
    public DomainTransport openDomain(final Info info)
    {
        return LoopbackOperationTransport.open();
    }
}
