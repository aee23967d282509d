package io.jfabric.cli;

import io.jfabric.AddressFormat;
import io.jfabric.DomainAttr;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Mode;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.Threading;
import io.jfabric.TxAttr;
import io.jfabric.Version;
import io.jfabric.spi.Provider;

import java.util.List;

/**
 * A test-only provider registered through the cli module's test {@code META-INF/services}, with known
 * attributes: an RDM info with MSG and TAGGED, and a MSG-endpoint info with MSG only; it needs no mode.
 */
public final class CliTestProvider implements Provider
{
    /** The provider name. */
    public static final String NAME = "clitest";

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public Version version()
    {
        return Version.of(3, 4);
    }

    @Override
    public int rank()
    {
        return 1000;
    }

    @Override
    public List<Info> infos()
    {
        final Info rdm = Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.SEND | Flags.RECV)
            .mode(0)
            .addrFormat(AddressFormat.SOCKADDR_IN)
            .txAttr(TxAttr.builder().caps(Flags.MSG | Flags.TAGGED | Flags.SEND).injectSize(32).size(128).build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).protocol(Protocol.UDP).protocolVersion(2)
                .maxMsgSize(4096).build())
            .domainAttr(DomainAttr.builder().name("clitest0").threading(Threading.SAFE)
                .controlProgress(Progress.AUTO).dataProgress(Progress.AUTO).build())
            .fabricAttr(FabricAttr.builder().name("clitest-fabric").build())
            .build();
        final Info msg = rdm.toBuilder()
            .caps(Flags.MSG | Flags.SEND | Flags.RECV)
            .mode(Mode.CONTEXT)
            .epAttr(rdm.epAttr().toBuilder().type(EndpointType.MSG).build())
            .build();
        return List.of(rdm, msg);
    }
}
