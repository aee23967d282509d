/**
 * The provider SPI. A provider registers through {@code META-INF/services/io.jfabric.spi.Provider} and takes part
 * in {@code Fabric.getInfo} discovery ({@link io.jfabric.spi.Provider}); one that opens objects is a
 * {@link io.jfabric.spi.TransportProvider}: a per-fabric {@link io.jfabric.spi.FabricBackend}, a
 * {@link io.jfabric.spi.DomainTransport} per domain with endpoint open/close hooks, and a
 * {@link io.jfabric.spi.ProviderCapabilities} description (atomic table,
 * {@link io.jfabric.spi.MemoryRegistrationPolicy}, authorization keys, refused
 * {@link io.jfabric.spi.Operation}s, multi-recv reporting) that the runtime enforces for every provider alike,
 * and named {@link io.jfabric.spi.OpsExtension}s ({@code fi_open_ops}). Every hook has a default that keeps the
 * runtime's own behaviour. runtime/RUNTIME.md, "How a provider describes itself", has the whole contract.
 */
package io.jfabric.spi;
