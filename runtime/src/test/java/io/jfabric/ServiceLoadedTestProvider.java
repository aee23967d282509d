package io.jfabric;

import java.util.List;

/**
 * A test-only provider registered through {@code META-INF/services} of the test class path, so that the
 * ServiceLoader-backed {@link Fabric#getInfo} is exercised. It ranks last, offers only a
 * {@code FI_EP_SOCK_DGRAM} endpoint that needs {@code FI_CONTEXT2}, so that other tests of this module which
 * ask for real endpoint types never see it.
 */
public final class ServiceLoadedTestProvider extends TestProviders.FixedProvider
{
    /** The provider name. */
    public static final String NAME = "jfabric-test-serviceloaded";

    /**
     * Built by the ServiceLoader.
     */
    public ServiceLoadedTestProvider()
    {
        super(NAME, Version.of(0, 7), Integer.MAX_VALUE, List.of(Info.builder()
            .caps(Flags.MSG | Flags.SEND | Flags.RECV)
            .mode(Mode.CONTEXT2)
            .addrFormat(AddressFormat.SOCKADDR_IN)
            .epAttr(EpAttr.builder().type(EndpointType.SOCK_DGRAM).maxMsgSize(1500).build())
            .domainAttr(DomainAttr.builder().name("sl0").build())
            .fabricAttr(FabricAttr.builder().name("sl-fabric").build())
            .build()));
    }
}
