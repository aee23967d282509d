package io.jfabric.spi;

import io.jfabric.AddressFormat;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Version;

import java.util.List;

/**
 * A fabric provider, found by {@link java.util.ServiceLoader} through
 * {@code META-INF/services/io.jfabric.spi.Provider}. Only providers that really work register; the runtime
 * never names one.
 * <p>
 * A provider describes what it can offer as a list of {@link Info} values holding its <em>maximum</em>
 * attributes (the most it supports: queue sizes, inject size, iov limits, the caps and orders it can give)
 * and the modes it needs; {@code tx_attr.op_flags} and {@code rx_attr.op_flags} list the operation flags it
 * supports (an application's default op flags must be among them). Hint checking, mode negotiation,
 * capability selection and the filling of output attributes are written once in the runtime
 * ({@code Fabric.getInfo}), the way libfabric's util layer does it, never per provider. The provider only
 * resolves addresses of its own formats.
 * <p>
 * Threading: implementations must be thread-safe; {@code getInfo} may be called from any thread, and the
 * returned infos must be immutable (they are, as {@link Info} is).
 */
public interface Provider
{
    /**
     * The secondary capabilities a provider reports without being asked unless it says otherwise: every
     * secondary capability but {@code FI_SOURCE}, {@code FI_SOURCE_ERR} and {@code FI_RMA_EVENT}, which cost work
     * on every completion or remote access in most providers.
     */
    long DEFAULT_FREE_SECONDARY_CAPS = Flags.SECONDARY_CAPS & ~(Flags.SOURCE | Flags.SOURCE_ERR | Flags.RMA_EVENT);

    /**
     * The provider name ({@code fabric_attr.prov_name}), e.g. {@code "inproc"}.
     *
     * @return the name, lower case, no separators.
     */
    String name();

    /**
     * The provider version ({@code fabric_attr.prov_version}).
     *
     * @return the version.
     */
    Version version();

    /**
     * The infos this provider can offer, best-performing first, each with the provider's maximum
     * attributes and required modes. {@code fabric_attr.prov_name} and {@code prov_version} may be left
     * unset: the runtime fills them from {@link #name()} and {@link #version()}.
     *
     * @return the infos; empty when the provider cannot run on this machine.
     */
    List<Info> infos();

    /**
     * The order of this provider among providers in getInfo results: lower ranks come first
     * (best-performing first). Providers of equal rank are ordered by name.
     *
     * @return the rank; 100 by default.
     */
    default int rank()
    {
        return 100;
    }

    /**
     * The secondary capabilities this provider gives at no cost, so that getInfo reports them in an output
     * info even when the application did not request them (fi_getinfo(3): "a provider may optionally report
     * non-selected secondary capabilities if doing so would not compromise performance or security"). Only the
     * bits among an info's own caps are reported; primary caps and modifiers here are ignored (a primary cap is
     * only ever enabled when requested). A requested secondary cap is always reported.
     *
     * @return the free secondary caps; {@link #DEFAULT_FREE_SECONDARY_CAPS} by default.
     */
    default long freeSecondaryCaps()
    {
        return DEFAULT_FREE_SECONDARY_CAPS;
    }

    /**
     * Whether getInfo offers {@code info} only to hints that name an address format (not {@code FI_FORMAT_UNSPEC},
     * not without hints): for an info in a second format the provider maps onto its own (shm's socket addresses),
     * which an application that did not ask for it should not meet.
     *
     * @param info one of {@link #infos()}.
     * @return false by default.
     */
    default boolean offeredOnlyForItsAddressFormat(final Info info)
    {
        return false;
    }

    /**
     * What this provider offers beyond its attributes for domains opened with {@code info}: the atomic table,
     * memory-registration policy, authorization keys, refused operations and multi-recv reporting (see
     * {@link ProviderCapabilities}). The runtime enforces it without naming the provider: getInfo asks it for
     * every candidate info (authorization-key hints), {@code Fabric.domain} once per domain.
     * <p>
     * Control path, any thread; the answer must not change for the same info.
     *
     * @param info one of this provider's infos, or an info derived from one by getInfo.
     * @return the description; {@link ProviderCapabilities#DEFAULT} (the runtime's full behaviour, no keys) by
     * default.
     */
    default ProviderCapabilities capabilities(final Info info)
    {
        return ProviderCapabilities.DEFAULT;
    }

    /**
     * The provider's own {@code FI_ADDR_STR} forms (those not written {@code scheme://...}): discovery asks these
     * codecs, every provider's, whether a node is an address string and parses it with the codec that recognizes
     * it, so that the runtime names no provider's syntax. Control path, any thread; the answer must not change.
     *
     * @return the codecs; none by default.
     */
    default List<AddressCodec> addressCodecs()
    {
        return List.of();
    }

    /**
     * Resolves a node and service into an address of one of this provider's formats.
     * <p>
     * The runtime calls it for every candidate info: with {@code node} and {@code service} null to get the default
     * local (source) address; with the caller's node and service otherwise. A node in {@code FI_ADDR_STR} form ({@code
     * fi_shm://name}, or a form of one of the {@link #addressCodecs()}) arrives verbatim with a null service. The
     * runtime resolves the socket formats ({@code FI_SOCKADDR*}) itself when this method returns null for them; every
     * other format, {@code FI_ADDR_STR} included, is the provider's alone. With {@code FI_NUMERICHOST} in {@code flags}
     * no name lookup may be made.
     *
     * @param format  the address format of the candidate info.
     * @param node    the node, an {@code FI_ADDR_STR} address, or null.
     * @param service the service, or null.
     * @param flags   the getInfo flags ({@code FI_SOURCE} when the address is the local source,
     *                {@code FI_NUMERICHOST}).
     * @return the address bytes, or null when this provider cannot express the node and service in
     *         {@code format} (the info is then left out of the results).
     */
    default byte[] resolveAddress(final AddressFormat format, final String node, final String service, final long flags)
    {
        return null;
    }
}
