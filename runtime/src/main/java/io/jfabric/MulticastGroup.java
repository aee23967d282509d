package io.jfabric;

/**
 * A multicast group an endpoint joined ({@code struct fid_mc}, fi_cm(3)): {@link #fiAddr()} is {@code fi_mc_addr},
 * the address a send to the whole group names, and {@link #close()} leaves the group. An application gets one from
 * {@link Endpoint#join(byte[], long, Object)} once the join completed ({@link EventQueue#JOIN_COMPLETE}).
 * <p>
 * No provider carries {@code FI_MULTICAST} yet: none advertises it, getInfo with it answers {@code ENODATA} and a
 * join answers {@code ENOSYS} (RUNTIME.md, "Datagram endpoints and multicast"; AERON.md says what the aeron provider
 * would need). This type is the API a provider that carries it implements.
 */
public interface MulticastGroup extends AutoCloseable
{
    /**
     * {@code fi_mc_addr}: the address of the group for sends.
     *
     * @return the fi_addr.
     */
    long fiAddr();

    /**
     * Leave the group.
     */
    @Override
    void close();
}
