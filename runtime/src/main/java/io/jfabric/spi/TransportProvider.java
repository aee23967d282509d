package io.jfabric.spi;

import io.jfabric.Info;

/**
 * A {@link Provider} that can open domains: it supplies a {@link DomainTransport}; the runtime supplies the
 * objects, the domain agent, matching and the protocol.
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
}
