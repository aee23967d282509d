package io.jfabric.spi;

import io.jfabric.Info;

/**
 * A {@link Provider} that can open domains: it supplies a {@link DomainTransport}; the runtime supplies the
 * objects, the domain agent, matching and the protocol.
 * <p>
 * Lifecycle, as the runtime drives it: {@link #openFabric} in {@code Fabric.open}; {@link #openDomain(FabricBackend,
 * Info)} in {@code Fabric.domain}; {@link DomainTransport#openEndpoint} in {@code Domain.endpoint} and
 * {@link DomainTransport#closeEndpoint} in {@code Endpoint.close}; {@link DomainTransport#close()} in
 * {@code Domain.close}; {@link FabricBackend#close()} in {@code Fabric.close}. Closing runs in the reverse order of
 * opening, and a step that fails after an earlier hook succeeded closes that hook's object before the failure
 * reaches the caller (a domain whose agent cannot start closes its transport; an endpoint whose set-up fails after
 * {@code openEndpoint} gets {@code closeEndpoint}).
 * <p>
 * Threading: thread-safe; control path only.
 */
public interface TransportProvider extends Provider
{
    /**
     * Open the back-end of a domain.
     *
     * @param info the info the domain is opened with (one this provider offered through getInfo).
     * @return the transport, owned by the domain from now on.
     * @throws io.jfabric.FabricException when the domain cannot be opened.
     */
    DomainTransport openDomain(Info info);

    /**
     * Open the provider's state for one fabric ({@code fi_fabric}). The default keeps nothing per fabric.
     *
     * @param info the info the fabric is opened with.
     * @return the per-fabric object, closed by {@code Fabric.close}; never null.
     * @throws io.jfabric.FabricException when the fabric cannot be opened (nothing is left open).
     */
    default FabricBackend openFabric(final Info info)
    {
        return FabricBackend.NONE;
    }

    /**
     * Open the back-end of a domain of a fabric this provider opened. The runtime calls this form; the default
     * ignores the fabric and calls {@link #openDomain(Info)}.
     *
     * @param fabric the object {@link #openFabric} returned for the domain's fabric.
     * @param info   the info the domain is opened with.
     * @return the transport, owned by the domain from now on.
     * @throws io.jfabric.FabricException when the domain cannot be opened.
     */
    default DomainTransport openDomain(final FabricBackend fabric, final Info info)
    {
        return openDomain(info);
    }

    /**
     * Whether every domain of this provider lives in the calling JVM. Connection management of {@code FI_EP_MSG}
     * endpoints then runs directly between the objects of this JVM; otherwise (the default) it runs as frames
     * through the {@link DomainTransport} (connection request, accept, reject, shutdown), across processes.
     *
     * @return true for a provider confined to one JVM.
     */
    default boolean inProcessOnly()
    {
        return false;
    }
}
