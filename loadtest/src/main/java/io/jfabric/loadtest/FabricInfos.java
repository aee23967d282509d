package io.jfabric.loadtest;

import io.jfabric.DomainAttr;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Info;
import io.jfabric.Progress;

import java.util.List;

/**
 * Finds the info a load test runs with: an {@code FI_EP_RDM} endpoint of one provider with the capability an
 * {@link OpClass} needs and, when asked, a data progress model.
 * <p>
 * Control path; thread-safe (no state).
 */
public final class FabricInfos
{
    private FabricInfos()
    {
    }

    /**
     * The first info of {@code provider} for an RDM endpoint with {@code caps} (and {@code progress} when not
     * null) whose fabric opens (discovery-only answers are skipped).
     *
     * @param provider the provider's name.
     * @param caps     the capabilities wanted ({@link OpClass#caps()}).
     * @param progress MANUAL, AUTO, or null for the provider's default.
     * @return the info.
     * @throws FabricException ENODATA when the provider offers no such endpoint.
     */
    public static Info resolve(final String provider, final long caps, final Progress progress)
    {
        final DomainAttr.Builder domainAttr = DomainAttr.builder();
        if (null != progress)
        {
            domainAttr.dataProgress(progress);
        }
        final Info hints = Info.builder()
            .caps(caps)
            .epAttr(EpAttr.builder().type(EndpointType.RDM).build())
            .fabricAttr(FabricAttr.builder().provName(provider).build())
            .domainAttr(domainAttr.build())
            .build();
        final List<Info> infos = Fabric.getInfo(hints);
        for (final Info info : infos)
        {
            try
            {
                Fabric.open(info).close();
                return info;
            }
            catch (final FabricException ex)
            {
                // a discovery-only provider: try the next answer
            }
        }
        throw new FabricException(Errno.ENODATA, "provider '" + provider + "' cannot open a fabric");
    }
}
