package io.jfabric.provider.aeron;

import io.jfabric.AddressFormat;
import io.jfabric.Info;
import io.jfabric.SockAddr;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The aeron provider in the socket address formats ({@code FI_SOCKADDR_IN}, {@code FI_SOCKADDR_IN6}): the same
 * infos as in {@code FI_ADDR_STR}, listed after them. Discovery resolves a node and service in these formats itself
 * (a numeric host, or a name lookup unless {@code FI_NUMERICHOST}), {@code FI_SOURCE} giving the address the domain
 * listens on; a domain opened from such an info names endpoint 0 of the default stream by its {@code sockaddr}
 * (host and UDP port), and any other endpoint or stream in the text form, which a {@code sockaddr} cannot carry.
 * Every address vector takes both forms.
 * <p>
 * Threading: stateless, thread-safe; control path only.
 */
final class AeronSocketNames
{
    private AeronSocketNames()
    {
    }

    /**
     * @param infos the provider's {@code FI_ADDR_STR} infos.
     * @return them, then the same in {@code FI_SOCKADDR_IN}, then in {@code FI_SOCKADDR_IN6}.
     */
    static List<Info> withSocketFormats(final List<Info> infos)
    {
        final List<Info> all = new ArrayList<>(infos);
        for (final AddressFormat format : new AddressFormat[]{AddressFormat.SOCKADDR_IN, AddressFormat.SOCKADDR_IN6})
        {
            for (final Info info : infos)
            {
                all.add(info.toBuilder().addrFormat(format).build());
            }
        }
        return List.copyOf(all);
    }

    /**
     * @param format an info's address format.
     * @return true when the domain's names are socket addresses.
     */
    static boolean socketFormat(final AddressFormat format)
    {
        return AddressFormat.SOCKADDR_IN == format || AddressFormat.SOCKADDR_IN6 == format ||
            AddressFormat.SOCKADDR == format;
    }

    /**
     * @param local the address a domain listens on (numeric host).
     * @return its {@code sockaddr_in}/{@code in6}, or null when the stream is not the default one or the host is a
     * wildcard (a socket name could not say where to send).
     */
    static byte[] socketName(final AeronAddress local)
    {
        if (AeronConfiguration.DEFAULT_STREAM != local.stream())
        {
            return null;
        }
        try
        {
            final InetAddress host = InetAddress.getByName(local.host());
            if (host.isAnyLocalAddress())
            {
                return null;
            }
            return SockAddr.encode(host, local.port());
        }
        catch (final UnknownHostException ex)
        {
            return null;
        }
    }
}
