package io.jfabric.spi;

/**
 * The provider's state for one open fabric ({@code fi_fabric}), made by {@link TransportProvider#openFabric} and
 * handed to every {@link TransportProvider#openDomain(FabricBackend, io.jfabric.Info)} of that fabric: where a
 * provider keeps what its domains share (a media driver it starts or attaches to, a CM service, a key table).
 * <p>
 * Lifecycle: the runtime opens it in {@code Fabric.open} and closes it exactly once, in {@code Fabric.close}, after
 * every domain of the fabric has closed (a fabric with open domains refuses to close with {@code EBUSY}). If the
 * open fails nothing is closed; the runtime never calls it after close.
 * <p>
 * Threading: control path, any application thread; thread-safe.
 */
public interface FabricBackend extends AutoCloseable
{
    /** The per-fabric object of a provider that keeps nothing per fabric. */
    FabricBackend NONE = new FabricBackend()
    {
    };

    /**
     * A named fabric-level extension ({@code fi_open_ops} on the fabric, {@code Fabric.openOps(name)}).
     *
     * @param name the extension's name.
     * @return the extension, or null when the provider has none of that name (the runtime answers
     * {@code ENOSYS}). The default has none.
     */
    default OpsExtension openOps(final String name)
    {
        return null;
    }

    /**
     * Release what the fabric held. The default holds nothing.
     */
    @Override
    default void close()
    {
    }
}
