package io.jfabric.provider.shm;

import io.jfabric.AddressFormat;
import io.jfabric.SockAddr;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * shm's documented mapping of socket addresses ({@code FI_SOCKADDR_IN}, {@code FI_SOCKADDR_IN6}), for applications
 * written for IP providers (fabtests' {@code msg_sockets}, {@code av_test}): a loopback socket address names a shm
 * domain by its port and an endpoint by the rest.
 * <ul>
 *     <li>{@code sockaddr_in} {@code 127.0.H.L:P} is endpoint {@code H * 256 + L - 1} of the domain named
 *     {@code in-P} (port 1 to 65535): {@code 127.0.0.1} is endpoint 0, {@code 127.0.0.2} endpoint 1, up to
 *     {@code 127.0.255.255}, endpoint 65534 (endpoint 65535 has no IPv4 form).</li>
 *     <li>{@code sockaddr_in6} {@code [::1]:P} with scope id {@code E} is endpoint {@code E} of {@code in-P}.</li>
 *     <li>As a source address (a domain's {@code src_addr}), the wildcard address ({@code 0.0.0.0}, {@code ::})
 *     is accepted as the loopback, and port 0 asks for a free {@code in-P}.</li>
 * </ul>
 * Other socket addresses are not shm addresses. A domain opened with a socket-address info and a name of another
 * form has no socket address: its endpoints give their {@code fi_shm://} text.
 * <p>
 * Threading: stateless, thread-safe.
 */
final class ShmSockAddr
{
    /** Prefix of the domain names socket addresses map to. */
    static final String PREFIX = "in-";
    private static final int PORT_OFFSET = 2;
    private static final int IN_ADDR_OFFSET = 4;
    private static final int IN6_ADDR_OFFSET = 8;
    private static final int IN6_SCOPE_OFFSET = 24;

    private ShmSockAddr()
    {
    }

    /**
     * @param bytes address bytes.
     * @return true when they are a {@code sockaddr_in} or {@code sockaddr_in6}.
     */
    static boolean isSockAddr(final byte[] bytes)
    {
        return SockAddr.family(bytes) > 0;
    }

    /**
     * The port of a socket address (for a source: 0 asks for a free name).
     */
    static int port(final byte[] bytes)
    {
        return ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN).getShort(PORT_OFFSET) & 0xFFFF;
    }

    /**
     * The shm address a socket address names.
     *
     * @param bytes    the bytes.
     * @param wildcard true for a source address: the wildcard address is taken as the loopback.
     * @return the address, or null when the bytes are not a mapped socket address (or the port is 0).
     */
    static ShmAddress parse(final byte[] bytes, final boolean wildcard)
    {
        final int family = SockAddr.family(bytes);
        final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final int port = port(bytes);
        if (port < 1)
        {
            return null;
        }
        final int endpoint;
        if (SockAddr.AF_INET == family)
        {
            final int a0 = bytes[IN_ADDR_OFFSET] & 0xFF;
            final int a1 = bytes[IN_ADDR_OFFSET + 1] & 0xFF;
            final int h = bytes[IN_ADDR_OFFSET + 2] & 0xFF;
            final int l = bytes[IN_ADDR_OFFSET + 3] & 0xFF;
            final boolean any = 0 == a0 && 0 == a1 && 0 == h && 0 == l;
            if (any && wildcard)
            {
                endpoint = 0;
            }
            else if (127 == a0 && 0 == a1 && (h | l) != 0)
            {
                endpoint = h * 256 + l - 1;
            }
            else
            {
                return null;
            }
        }
        else if (SockAddr.AF_INET6 == family)
        {
            boolean zeros = true;
            for (int i = IN6_ADDR_OFFSET; i < IN6_ADDR_OFFSET + 15; i++)
            {
                zeros &= 0 == bytes[i];
            }
            final int last = bytes[IN6_ADDR_OFFSET + 15];
            if (!zeros || !(1 == last || (wildcard && 0 == last)))
            {
                return null;
            }
            endpoint = b.getInt(IN6_SCOPE_OFFSET);
            if (endpoint < 0 || endpoint > ShmAddress.MAX_ENDPOINT)
            {
                return null;
            }
        }
        else
        {
            return null;
        }
        return new ShmAddress(PREFIX + port, endpoint);
    }

    /**
     * The socket address of an shm address in {@code format}, when its name is one of the mapped names.
     *
     * @param address the shm address.
     * @param format  {@code FI_SOCKADDR_IN} or {@code FI_SOCKADDR_IN6} ({@code FI_SOCKADDR} gives IN).
     * @return the bytes, or null when the name is not {@code in-<port>} or the format is not a socket format.
     */
    static byte[] encode(final ShmAddress address, final AddressFormat format)
    {
        final int port = portOf(address.name());
        if (port < 1)
        {
            return null;
        }
        final int e = address.endpoint();
        if (AddressFormat.SOCKADDR_IN == format || AddressFormat.SOCKADDR == format)
        {
            final ByteBuffer b = ByteBuffer.allocate(SockAddr.SOCKADDR_IN_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            b.putShort(0, (short) SockAddr.AF_INET);
            b.order(ByteOrder.BIG_ENDIAN).putShort(PORT_OFFSET, (short) port);
            final int host = e + 1;
            b.put(IN_ADDR_OFFSET, (byte) 127).put(IN_ADDR_OFFSET + 2, (byte) (host >>> 8))
                .put(IN_ADDR_OFFSET + 3, (byte) host);
            return b.array();
        }
        if (AddressFormat.SOCKADDR_IN6 == format)
        {
            final ByteBuffer b = ByteBuffer.allocate(SockAddr.SOCKADDR_IN6_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            b.putShort(0, (short) SockAddr.AF_INET6);
            b.order(ByteOrder.BIG_ENDIAN).putShort(PORT_OFFSET, (short) port);
            b.put(IN6_ADDR_OFFSET + 15, (byte) 1);
            b.order(ByteOrder.LITTLE_ENDIAN).putInt(IN6_SCOPE_OFFSET, e);
            return b.array();
        }
        return null;
    }

    /**
     * @return the port of a mapped name {@code in-<port>}, or -1.
     */
    static int portOf(final String name)
    {
        if (!name.startsWith(PREFIX) || name.length() > PREFIX.length() + 5 || name.length() == PREFIX.length())
        {
            return -1;
        }
        int port = 0;
        for (int i = PREFIX.length(); i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if (c < '0' || c > '9')
            {
                return -1;
            }
            port = port * 10 + (c - '0');
        }
        return port >= 1 && port <= 65535 && name.equals(PREFIX + port) ? port : -1;
    }

    /**
     * @return true for {@code FI_SOCKADDR}, {@code FI_SOCKADDR_IN}, {@code FI_SOCKADDR_IN6}.
     */
    static boolean socketFormat(final AddressFormat format)
    {
        return AddressFormat.SOCKADDR == format || AddressFormat.SOCKADDR_IN == format ||
            AddressFormat.SOCKADDR_IN6 == format;
    }
}
