package io.jfabric.fault;

import io.jfabric.DomainAttr;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.Version;
import io.jfabric.provider.inproc.InprocProvider;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.TransportProvider;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A test-only provider, {@value #NAME}: inproc domains whose transport is wrapped in a
 * {@link FaultLoopbackTransport}, so that a test can fail, drop, delay, reorder and stall the frames of the runtime's
 * protocol, or take a peer down, on a seeded {@link FaultPlan}, and read what was done in its trace. Registered
 * through {@code META-INF/services} of the test class path but invisible to getInfo (it offers no info): a test
 * opens it by name with {@link #info}, an inproc info renamed. Each domain opened takes the next plan handed to
 * {@link #nextDomain}, or none (a domain that passes every frame).
 * <p>
 * Threading: thread-safe.
 */
public final class FaultLoopbackProvider implements TransportProvider
{
    /** Provider name. */
    public static final String NAME = "faultloop";
    private static final ConcurrentLinkedQueue<FaultPlan> PLANS = new ConcurrentLinkedQueue<>();

    /**
     * Built by the ServiceLoader.
     */
    public FaultLoopbackProvider()
    {
    }

    /**
     * The plan of the next domain this provider opens (plans are taken in the order given).
     *
     * @param plan the plan.
     * @return {@code plan}.
     */
    public static FaultPlan nextDomain(final FaultPlan plan)
    {
        PLANS.add(plan);
        return plan;
    }

    /**
     * Forget plans no domain took (a test's clean-up).
     */
    public static void clearPlans()
    {
        PLANS.clear();
    }

    /**
     * inproc's first RDM info for MSG, TAGGED, RMA and ATOMIC with {@code progress}, renamed to this provider.
     *
     * @param progress the data progress.
     * @return the info to open fabric, domains and endpoints with.
     */
    public static Info info(final Progress progress)
    {
        final Info inproc = Fabric.getInfo(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC)
            .fabricAttr(FabricAttr.builder().provName(InprocProvider.NAME).build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build()).get(0);
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
        final FaultPlan plan = PLANS.poll();
        final DomainTransport inner = new InprocProvider().openDomain(info);
        return new FaultLoopbackTransport(inner, null == plan ? new FaultPlan(0) : plan);
    }
}
