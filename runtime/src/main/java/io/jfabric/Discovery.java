package io.jfabric;

import io.jfabric.spi.AddressCodec;
import io.jfabric.spi.Provider;
import io.jfabric.spi.ProviderCapabilities;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * getInfo discovery over a fixed set of providers: version and flag checks, node/service resolution
 * ({@code FI_SOURCE}, {@code FI_NUMERICHOST}, {@code FI_ADDR_STR} nodes), {@code FI_PROV_ATTR_ONLY}, and
 * for every provider info the hint check and output construction of {@link InfoMatcher}. Results come
 * best-performing first: providers by {@link Provider#rank()} (then name), each provider's infos in its
 * own order.
 * <p>
 * Immutable after construction and thread-safe. Control path only.
 */
final class Discovery
{
    /**
     * Host name lookup, replaceable in tests to prove that {@code FI_NUMERICHOST} makes none.
     */
    @FunctionalInterface
    interface HostLookup
    {
        /**
         * Looks a host name up.
         *
         * @param host the name.
         * @return its addresses.
         * @throws UnknownHostException when it has none.
         */
        InetAddress[] lookup(String host) throws UnknownHostException;
    }

    /** A hint address that the output format cannot carry (distinct from an absent one). */
    private static final byte[] UNUSABLE = new byte[0];

    private final List<Provider> providers;
    /** Every provider's {@code FI_ADDR_STR} codecs, in provider order. */
    private final List<AddressCodec> codecs;
    private final HostLookup hostLookup;
    private final ServiceNames serviceNames;

    /**
     * Discovery over explicit providers with the system's name lookup.
     *
     * @param providers the providers.
     */
    Discovery(final List<Provider> providers)
    {
        this(providers, InetAddress::getAllByName);
    }

    /**
     * Discovery over explicit providers and a given name lookup.
     *
     * @param providers  the providers.
     * @param hostLookup the name lookup.
     */
    Discovery(final List<Provider> providers, final HostLookup hostLookup)
    {
        this(providers, hostLookup, ServiceNames.system());
    }

    /**
     * Discovery over explicit providers, a given name lookup and a given services database.
     *
     * @param providers    the providers.
     * @param hostLookup   the name lookup.
     * @param serviceNames the service name lookup.
     */
    Discovery(final List<Provider> providers, final HostLookup hostLookup, final ServiceNames serviceNames)
    {
        final List<Provider> sorted = new ArrayList<>(providers);
        sorted.sort(Comparator.comparingInt(Provider::rank).thenComparing(Provider::name));
        this.providers = List.copyOf(sorted);
        final List<AddressCodec> all = new ArrayList<>();
        for (final Provider p : this.providers)
        {
            all.addAll(p.addressCodecs());
        }
        this.codecs = List.copyOf(all);
        this.hostLookup = hostLookup;
        this.serviceNames = serviceNames;
    }

    /**
     * Discovery over the providers registered with {@link ServiceLoader}; a provider that fails to load
     * is left out (it cannot serve anyway).
     *
     * @return the discovery.
     */
    static Discovery loadDefault()
    {
        final List<Provider> found = new ArrayList<>();
        final ServiceLoader<Provider> loader = ServiceLoader.load(Provider.class, Discovery.class.getClassLoader());
        final java.util.Iterator<Provider> it = loader.iterator();
        int failures = 0;
        while (failures < 1024)
        {
            try
            {
                if (!it.hasNext())
                {
                    break;
                }
                found.add(it.next());
            }
            catch (final ServiceConfigurationError ex)
            {
                // a broken registration is skipped (only working providers are offered); the bound guards
                // against an iterator that keeps failing on the same entry
                failures++;
            }
        }
        return new Discovery(found);
    }

    /**
     * The providers, in result order.
     *
     * @return the providers.
     */
    List<Provider> providers()
    {
        return providers;
    }

    /**
     * {@code fi_getinfo}: see {@link Fabric#getInfo(Version, String, String, long, Info)}.
     */
    List<Info> getInfo(final Version version, final String node, final String service, final long flags,
        final Info hints)
    {
        if (version == null)
        {
            throw new FabricException(Errno.EINVAL, "version is null");
        }
        if (version.compareTo(Version.CURRENT) > 0)
        {
            throw new FabricException(Errno.ENOSYS, "requested API version " + version.major() + "." +
                version.minor() + " is newer than the library's " + Version.CURRENT.major() + "." +
                Version.CURRENT.minor());
        }
        if ((flags & ~Flags.GETINFO_FLAGS) != 0)
        {
            throw new FabricException(Errno.EBADFLAGS, "getInfo flags not supported: " +
                Flags.print(flags & ~Flags.GETINFO_FLAGS) + " (valid: FI_NUMERICHOST, FI_SOURCE, FI_PROV_ATTR_ONLY)");
        }
        if ((flags & Flags.PROV_ATTR_ONLY) != 0)
        {
            return provAttrOnly(version, hints);
        }
        if ((flags & Flags.SOURCE) != 0 && node == null && service == null)
        {
            throw new FabricException(Errno.EINVAL, "FI_SOURCE needs a node or a service");
        }
        final AddressString addrStr = AddressString.isAddressString(node, codecs) ?
            AddressString.parse(node, codecs) : null;
        if (addrStr != null && service != null)
        {
            throw new FabricException(Errno.EINVAL, "FI_ADDR_STR node '" + node + "' takes no service, got '" +
                service + "'");
        }
        if ((flags & Flags.NUMERICHOST) != 0 && node != null)
        {
            final String host = addrStr != null ? addrStr.node() : node;
            // A provider's own form names no host (a codec says so): FI_NUMERICHOST does not apply to it.
            final AddressCodec codec = addrStr != null ? addrStr.codec(codecs) : null;
            final boolean hostNode = codec == null || codec.nodeIsHost();
            if (hostNode && host != null && !SockAddr.isNumericHost(host))
            {
                throw new FabricException(Errno.ENODATA, "FI_NUMERICHOST: node '" + node +
                    "' is not a numeric address (no name lookup is made)");
            }
        }

        final List<Info> out = new ArrayList<>();
        final StringBuilder why = new StringBuilder();
        final StringBuilder reason = new StringBuilder();
        for (final Provider p : providers)
        {
            final long freeCaps = freeCapsOf(p);
            for (final Info raw : infosOf(p, why))
            {
                if (raw == null)
                {
                    continue;
                }
                if ((hints == null || hints.addrFormat() == AddressFormat.UNSPEC) &&
                    p.offeredOnlyForItsAddressFormat(raw))
                {
                    continue;
                }
                final Info prov = withProviderIdentity(p, raw);
                final String mismatch = InfoMatcher.mismatch(prov, hints, version);
                if (mismatch != null)
                {
                    note(why, p, mismatch);
                    continue;
                }
                final String keys = authKeyMismatch(p, prov, hints);
                if (keys != null)
                {
                    note(why, p, keys);
                    continue;
                }
                final Info altered = InfoMatcher.alter(prov, hints, version, freeCaps);
                reason.setLength(0);
                final Info resolved = addresses(p, altered, node, service, flags, hints, addrStr, reason);
                if (resolved == null)
                {
                    note(why, p, reason.length() > 0 ? reason.toString() : "cannot resolve node '" + node +
                        "' service '" + service + "' as " + altered.addrFormat().fiName());
                    continue;
                }
                // Two provider infos can become identical once the hints' choices are applied (an AUTO-progress
                // info altered to the MANUAL an application asked for): list it once.
                if (!out.contains(resolved))
                {
                    out.add(resolved);
                }
            }
        }
        if (out.isEmpty())
        {
            throw new FabricException(Errno.ENODATA, providers.isEmpty() ? "no provider is registered" :
                "no provider matches" + (why.length() > 0 ? ": " + why : ""));
        }
        return List.copyOf(out);
    }

    private List<Info> provAttrOnly(final Version version, final Info hints)
    {
        final String filter = hints == null ? null : hints.fabricAttr().provName();
        final List<Info> out = new ArrayList<>();
        for (final Provider p : providers)
        {
            if (filter == null || InfoMatcher.providerNameMatches(p.name(), filter))
            {
                out.add(Info.alloc().toBuilder()
                    .fabricAttr(FabricAttr.builder().provName(p.name()).provVersion(p.version()).apiVersion(version)
                        .build())
                    .build());
            }
        }
        if (out.isEmpty())
        {
            throw new FabricException(Errno.ENODATA, providers.isEmpty() ? "no provider is registered" :
                "no provider named '" + filter + "'");
        }
        return List.copyOf(out);
    }

    /**
     * A provider's infos; one that fails to produce them is left out (noted), never fatal to discovery.
     */
    private static List<Info> infosOf(final Provider p, final StringBuilder why)
    {
        try
        {
            final List<Info> infos = p.infos();
            return infos != null ? infos : List.of();
        }
        catch (final RuntimeException ex)
        {
            note(why, p, "failed to describe its infos: " + ex);
            return List.of();
        }
    }

    /**
     * Authorization keys in the hints against the provider's description for the info (a provider that fails to
     * describe itself takes no keys).
     */
    private static String authKeyMismatch(final Provider p, final Info prov, final Info hints)
    {
        ProviderCapabilities caps;
        try
        {
            caps = ProviderRules.capabilitiesOf(p, prov);
        }
        catch (final RuntimeException ex)
        {
            caps = ProviderCapabilities.DEFAULT;
        }
        return ProviderRules.authKeyMismatch(caps, hints);
    }

    /**
     * A provider's free secondary caps; one that fails to say reports none unrequested.
     */
    private static long freeCapsOf(final Provider p)
    {
        try
        {
            return p.freeSecondaryCaps();
        }
        catch (final RuntimeException ex)
        {
            return 0;
        }
    }

    private static Info withProviderIdentity(final Provider p, final Info raw)
    {
        final FabricAttr fa = raw.fabricAttr();
        if (p.name().equals(fa.provName()) && p.version().equals(fa.provVersion()))
        {
            return raw;
        }
        return raw.toBuilder().fabricAttr(fa.toBuilder().provName(p.name()).provVersion(p.version()).build()).build();
    }

    private static void note(final StringBuilder why, final Provider p, final String reason)
    {
        final String entry = p.name() + ": " + reason;
        // One line per distinct reason: a provider's several infos often drop out for the same one.
        if (why.length() < 400 && !("; " + why + ";").contains("; " + entry + ";"))
        {
            why.append(why.length() > 0 ? "; " : "").append(entry);
        }
    }

    /**
     * Fills the addresses as fi_getinfo(3) says: no node and service gives the default source address
     * (and the hints' destination); with FI_SOURCE the node/service is the source (the hints' source is
     * ignored); otherwise it is the destination and the source is filled with the local default or the hints'
     * source (the hints' destination is ignored). A hint address that is used must fit the info's address format
     * (see {@link #hintAddress}), or the info drops out.
     *
     * @param reason receives why, when the result is null.
     * @return the info with addresses, or null when the node/service or a hint address cannot be expressed in its
     *         format.
     */
    private Info addresses(final Provider p, final Info info, final String node, final String service,
        final long flags, final Info hints, final AddressString addrStr, final StringBuilder reason)
    {
        final AddressFormat fmt = info.addrFormat();
        final boolean noNode = node == null && service == null;
        final boolean source = (flags & Flags.SOURCE) != 0;
        final byte[] hintSrc = hints == null || (!noNode && source) ? null :
            hintAddress(fmt, hints.addrFormat(), hints.srcAddr(), codecs);
        final byte[] hintDest = hints == null || (!noNode && !source) ? null :
            hintAddress(fmt, hints.addrFormat(), hints.destAddr(), codecs);
        if (hintSrc == UNUSABLE || hintDest == UNUSABLE)
        {
            reason.append("hint ").append(hintSrc == UNUSABLE ? "src_addr" : "dest_addr").append(" (")
                .append(hints.addrFormat().fiName()).append(", ")
                .append(describe(hintSrc == UNUSABLE ? hints.srcAddr() : hints.destAddr()))
                .append(") cannot be expressed as ").append(fmt.fiName());
            return null;
        }
        final byte[] src;
        final byte[] dest;
        if (noNode)
        {
            src = hintSrc != null ? hintSrc : resolve(p, fmt, null, null, flags | Flags.SOURCE, null, reason);
            dest = hintDest;
        }
        else if (source)
        {
            src = resolve(p, fmt, node, service, flags, addrStr, reason);
            if (src == null)
            {
                return null;
            }
            dest = hintDest;
        }
        else
        {
            dest = resolve(p, fmt, node, service, flags, addrStr, reason);
            if (dest == null)
            {
                return null;
            }
            src = hintSrc != null ? hintSrc : resolve(p, fmt, null, null, flags | Flags.SOURCE, null, reason);
        }
        return info.toBuilder().srcAddr(src).destAddr(dest).build();
    }

    /**
     * A hint's source or destination address as an output info of format {@code out} carries it. The socket
     * formats check the address family the bytes hold, whatever format the hint named: {@code FI_SOCKADDR} takes
     * {@code AF_INET} and {@code AF_INET6}, {@code FI_SOCKADDR_IN} only {@code AF_INET}, {@code FI_SOCKADDR_IN6}
     * only {@code AF_INET6}, {@code FI_SOCKADDR_IB} both or bytes the hint itself calls {@code FI_SOCKADDR_IB}.
     * Other formats take the bytes when the hint names the same format, or names none ({@code FI_FORMAT_UNSPEC},
     * provider-specific) and, for {@code FI_ADDR_STR}, the bytes are an address string.
     *
     * @param out     the info's address format.
     * @param hintFmt the hint's address format.
     * @param bytes   the hint's address, or null.
     * @return the bytes, null when absent, {@link #UNUSABLE} when they do not fit {@code out}.
     */
    static byte[] hintAddress(
        final AddressFormat out, final AddressFormat hintFmt, final byte[] bytes, final List<AddressCodec> codecs)
    {
        if (bytes == null)
        {
            return null;
        }
        final int family = SockAddr.family(bytes);
        switch (out)
        {
            case SOCKADDR:
                return family == SockAddr.AF_INET || family == SockAddr.AF_INET6 ? bytes : UNUSABLE;
            case SOCKADDR_IN:
                return family == SockAddr.AF_INET ? bytes : UNUSABLE;
            case SOCKADDR_IN6:
                return family == SockAddr.AF_INET6 ? bytes : UNUSABLE;
            case SOCKADDR_IB:
                return family == SockAddr.AF_INET || family == SockAddr.AF_INET6 ||
                    hintFmt == AddressFormat.SOCKADDR_IB ? bytes : UNUSABLE;
            case STR:
                return (hintFmt == AddressFormat.STR || hintFmt == AddressFormat.UNSPEC) &&
                    AddressString.isAddressString(new String(bytes, StandardCharsets.UTF_8), codecs) ? bytes :
                    UNUSABLE;
            default:
                return hintFmt == out || hintFmt == AddressFormat.UNSPEC ? bytes : UNUSABLE;
        }
    }

    private static String describe(final byte[] bytes)
    {
        final int family = SockAddr.family(bytes);
        return family == SockAddr.AF_INET ? "AF_INET" : family == SockAddr.AF_INET6 ? "AF_INET6" :
            bytes.length + " bytes";
    }

    private byte[] resolve(final Provider p, final AddressFormat fmt, final String node, final String service,
        final long flags, final AddressString addrStr, final StringBuilder reason)
    {
        if (addrStr != null && addrStr.codec(codecs) != null && addrStr.codec(p.addressCodecs()) == null)
        {
            // An address in a provider's own form is for the providers that know that form.
            reason.append("address '").append(node).append("' is in the ").append(addrStr.scheme())
                .append(" form, which the provider does not read");
            return null;
        }
        final byte[] own;
        try
        {
            own = p.resolveAddress(fmt, node, service, flags);
        }
        catch (final FabricException ex)
        {
            throw ex;
        }
        catch (final RuntimeException ex)
        {
            // a provider that cannot parse the node cannot reach it: its info drops out
            reason.append("cannot parse node '").append(node).append("': ").append(ex.getMessage());
            return null;
        }
        if (own != null)
        {
            return own;
        }
        switch (fmt)
        {
            case SOCKADDR:
            case SOCKADDR_IN:
            case SOCKADDR_IN6:
                return resolveSocket(fmt, node, service, flags, addrStr, reason);
            default:
                return null;
        }
    }

    /**
     * Resolves a node and service into a socket address of format {@code fmt}: the node as a numeric literal,
     * or through the name lookup (never with FI_NUMERICHOST); the service as a port number or a name of the
     * services database. An {@code FI_ADDR_STR} node names its family with its scheme
     * ({@code fi_sockaddr_in://}, {@code fi_sockaddr_in6://}), and an address of that family is chosen.
     */
    private byte[] resolveSocket(final AddressFormat fmt, final String node, final String service,
        final long flags, final AddressString addrStr, final StringBuilder reason)
    {
        final String host;
        final String port;
        AddressFormat family = fmt;
        if (addrStr != null)
        {
            final AddressFormat f = addrStr.format(codecs);
            if (f != AddressFormat.SOCKADDR && f != AddressFormat.SOCKADDR_IN && f != AddressFormat.SOCKADDR_IN6)
            {
                return null;
            }
            if (f != AddressFormat.SOCKADDR)
            {
                if (fmt != AddressFormat.SOCKADDR && fmt != f)
                {
                    reason.append("address '").append(node).append("' is ").append(f.fiName())
                        .append(", not ").append(fmt.fiName());
                    return null;
                }
                family = f;
            }
            host = addrStr.node();
            port = addrStr.service();
        }
        else
        {
            host = node;
            port = service;
        }
        final int portNumber;
        try
        {
            portNumber = serviceNames.port(port);
        }
        catch (final FabricException ex)
        {
            reason.append(ex.getMessage());
            return null;
        }
        final boolean v6 = family == AddressFormat.SOCKADDR_IN6;
        try
        {
            final InetAddress[] candidates;
            if (host == null)
            {
                // No node: the wildcard address for a source, the loopback for a destination (as getaddrinfo).
                final boolean passive = (flags & Flags.SOURCE) != 0;
                final InetAddress loopback = v6 ?
                    InetAddress.getByName("::1") : InetAddress.getByAddress(new byte[] { 127, 0, 0, 1 });
                final InetAddress any = InetAddress.getByAddress(new byte[v6 ? 16 : 4]);
                candidates = new InetAddress[] { passive ? any : loopback };
            }
            else if (SockAddr.isNumericHost(host))
            {
                // a literal: InetAddress parses it without any lookup
                candidates = new InetAddress[] { InetAddress.getByName(host) };
            }
            else if ((flags & Flags.NUMERICHOST) != 0)
            {
                reason.append("FI_NUMERICHOST: node '").append(host).append("' is not numeric");
                return null;
            }
            else
            {
                candidates = hostLookup.lookup(host);
            }
            for (final InetAddress a : candidates)
            {
                if (family == AddressFormat.SOCKADDR ||
                    (v6 ? a instanceof Inet6Address : a instanceof Inet4Address))
                {
                    return SockAddr.encode(a, portNumber);
                }
            }
            reason.append("node '").append(host).append("' has no ").append(v6 ? "IPv6" : "IPv4")
                .append(" address for ").append(fmt.fiName());
            return null;
        }
        catch (final UnknownHostException ex)
        {
            reason.append("unknown host '").append(host).append('\'');
            return null;
        }
    }
}
