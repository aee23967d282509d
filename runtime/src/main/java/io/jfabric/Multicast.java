package io.jfabric;

/**
 * {@code fi_join} checks (fi_cm(3)): the arguments first, then the capability. No provider carries
 * {@code FI_MULTICAST} today, so a well-formed join answers {@code ENOSYS} (RUNTIME.md, "Datagram endpoints and
 * multicast").
 * <p>
 * Static helpers; control path.
 */
final class Multicast
{
    private static final long JOIN_FLAGS = Flags.SEND | Flags.RECV;

    private Multicast()
    {
    }

    /**
     * Join a group.
     *
     * @param info         the endpoint's info.
     * @param groupAddress the group's address in the provider's format.
     * @param flags        0, {@code FI_SEND} (send only) or {@code FI_RECV} (receive only), or both.
     * @return never: see the exceptions.
     * @throws FabricException EINVAL for no address, EBADFLAGS for other flags, ENOSYS otherwise (an endpoint without
     *                         {@code FI_MULTICAST}, and every endpoint today: no provider carries multicast).
     */
    static MulticastGroup join(final Info info, final byte[] groupAddress, final long flags)
    {
        if (null == groupAddress || 0 == groupAddress.length)
        {
            throw new FabricException(Errno.EINVAL, "fi_join: no group address");
        }
        if ((flags & ~JOIN_FLAGS) != 0)
        {
            throw new FabricException(Errno.EBADFLAGS, "fi_join: flags other than FI_SEND and FI_RECV");
        }
        final String provider = null == info.fabricAttr() ? null : info.fabricAttr().provName();
        final String caps = (info.caps() & Flags.MULTICAST) != 0 ? "" : " (not in the endpoint's caps)";
        throw new FabricException(Errno.ENOSYS, "fi_join: " + (null == provider ? "this provider" : provider) +
            " does not carry FI_MULTICAST" + caps);
    }
}
