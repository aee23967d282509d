package io.jfabric;

import io.jfabric.spi.Provider;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
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

    private final List<Provider> providers;
    private final HostLookup hostLookup;

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
        final List<Provider> sorted = new ArrayList<>(providers);
        sorted.sort(Comparator.comparingInt(Provider::rank).thenComparing(Provider::name));
        this.providers = List.copyOf(sorted);
        this.hostLookup = hostLookup;
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
        final AddressString addrStr = AddressString.isAddressString(node) ? AddressString.parse(node) : null;
        if (addrStr != null && service != null)
        {
            throw new FabricException(Errno.EINVAL, "FI_ADDR_STR node '" + node + "' takes no service, got '" +
                service + "'");
        }
        if ((flags & Flags.NUMERICHOST) != 0 && node != null)
        {
            final String host = addrStr != null ? addrStr.node() : node;
            final boolean gni = addrStr != null && "gni".equals(addrStr.scheme());
            if (!gni && host != null && !SockAddr.isNumericHost(host))
            {
                throw new FabricException(Errno.ENODATA, "FI_NUMERICHOST: node '" + node +
                    "' is not a numeric address (no name lookup is made)");
            }
        }

        final List<Info> out = new ArrayList<>();
        final StringBuilder why = new StringBuilder();
        for (final Provider p : providers)
        {
            for (final Info raw : infosOf(p, why))
            {
                if (raw == null)
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
                final Info altered = InfoMatcher.alter(prov, hints, version);
                final Info resolved = addresses(p, altered, node, service, flags, hints, addrStr);
                if (resolved == null)
                {
                    note(why, p, "cannot resolve node '" + node + "' service '" + service + "' as " +
                        altered.addrFormat().fiName());
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
        if (why.length() < 400)
        {
            why.append(why.length() > 0 ? "; " : "").append(p.name()).append(": ").append(reason);
        }
    }

    /**
     * Fills the addresses as fi_getinfo(3) says: no node and service gives the default source address
     * (and the hints' destination); with FI_SOURCE the node/service is the source; otherwise it is the
     * destination and the source is filled with the local default (or the hints' source).
     *
     * @return the info with addresses, or null when the node/service cannot be expressed in its format.
     */
    private Info addresses(final Provider p, final Info info, final String node, final String service,
        final long flags, final Info hints, final AddressString addrStr)
    {
        final AddressFormat fmt = info.addrFormat();
        final byte[] hintSrc = hints != null && hints.addrFormat() == fmt ? hints.srcAddr() : null;
        final byte[] hintDest = hints != null && hints.addrFormat() == fmt ? hints.destAddr() : null;
        final byte[] src;
        final byte[] dest;
        if (node == null && service == null)
        {
            src = hintSrc != null ? hintSrc : resolve(p, fmt, null, null, flags | Flags.SOURCE, null);
            dest = hintDest;
        }
        else if ((flags & Flags.SOURCE) != 0)
        {
            src = resolve(p, fmt, node, service, flags, addrStr);
            if (src == null)
            {
                return null;
            }
            dest = hintDest;
        }
        else
        {
            dest = resolve(p, fmt, node, service, flags, addrStr);
            if (dest == null)
            {
                return null;
            }
            src = hintSrc != null ? hintSrc : resolve(p, fmt, null, null, flags | Flags.SOURCE, null);
        }
        return info.toBuilder().srcAddr(src).destAddr(dest).build();
    }

    private byte[] resolve(final Provider p, final AddressFormat fmt, final String node, final String service,
        final long flags, final AddressString addrStr)
    {
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
                return resolveSocket(fmt, node, service, flags, addrStr);
            default:
                return null;
        }
    }

    private byte[] resolveSocket(final AddressFormat fmt, final String node, final String service,
        final long flags, final AddressString addrStr)
    {
        final String host;
        final String port;
        if (addrStr != null)
        {
            final AddressFormat f = addrStr.format();
            if (f != AddressFormat.SOCKADDR && f != AddressFormat.SOCKADDR_IN && f != AddressFormat.SOCKADDR_IN6)
            {
                return null;
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
            portNumber = SockAddr.port(port);
        }
        catch (final FabricException ex)
        {
            return null;
        }
        final boolean v6 = fmt == AddressFormat.SOCKADDR_IN6;
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
                return null;
            }
            else
            {
                candidates = hostLookup.lookup(host);
            }
            for (final InetAddress a : candidates)
            {
                if (fmt == AddressFormat.SOCKADDR || (v6 ? a instanceof Inet6Address : a instanceof Inet4Address))
                {
                    return SockAddr.encode(a, portNumber);
                }
            }
            return null;
        }
        catch (final UnknownHostException ex)
        {
            return null;
        }
    }
}
