package io.jfabric;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Encodes and decodes the socket address formats ({@link AddressFormat#SOCKADDR_IN},
 * {@link AddressFormat#SOCKADDR_IN6}, {@link AddressFormat#SOCKADDR}) in the byte layout of Linux's
 * {@code struct sockaddr_in} (16 bytes: family {@code AF_INET}=2 in little-endian, port in network order,
 * 4 address bytes, 8 zero bytes) and {@code struct sockaddr_in6} (28 bytes: family {@code AF_INET6}=10,
 * port, flow info, 16 address bytes, scope id), and recognises numeric host strings.
 * <p>
 * Stateless and thread-safe. Control path only.
 */
public final class SockAddr
{
    /** {@code AF_INET}. */
    public static final int AF_INET = 2;
    /** {@code AF_INET6}. */
    public static final int AF_INET6 = 10;
    /** Size of {@code struct sockaddr_in}. */
    public static final int SOCKADDR_IN_LENGTH = 16;
    /** Size of {@code struct sockaddr_in6}. */
    public static final int SOCKADDR_IN6_LENGTH = 28;

    private SockAddr()
    {
    }

    /**
     * Whether a host string is a numeric IPv4 or IPv6 literal, decided without any name lookup.
     *
     * @param host the host.
     * @return true for a dotted-quad IPv4 or a colon-form IPv6 literal.
     */
    public static boolean isNumericHost(final String host)
    {
        if (host == null || host.isEmpty())
        {
            return false;
        }
        if (host.matches("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}"))
        {
            return true;
        }
        final String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        return h.indexOf(':') >= 0 && h.matches("[0-9A-Fa-f:.]+(%.+)?");
    }

    /**
     * Parses a numeric port.
     *
     * @param service the service, null or empty for port 0.
     * @return the port.
     * @throws FabricException ENODATA naming the service when it is not a number in 0..65535 (service names
     *                         are not looked up here; getInfo resolves them through the services database).
     */
    public static int port(final String service)
    {
        if (service == null || service.isEmpty())
        {
            return 0;
        }
        try
        {
            final int p = Integer.parseInt(service);
            if (p >= 0 && p <= 0xFFFF)
            {
                return p;
            }
        }
        catch (final NumberFormatException ignore)
        {
            // reported below
        }
        throw new FabricException(Errno.ENODATA, "service '" + service + "' is not a port number 0..65535");
    }

    /**
     * Encodes an internet address and port.
     *
     * @param address the address; IPv4 gives {@code sockaddr_in}, IPv6 gives {@code sockaddr_in6}.
     * @param port    the port.
     * @return the bytes.
     */
    public static byte[] encode(final InetAddress address, final int port)
    {
        if (address instanceof Inet4Address)
        {
            final ByteBuffer b = ByteBuffer.allocate(SOCKADDR_IN_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            b.putShort(0, (short) AF_INET);
            b.order(ByteOrder.BIG_ENDIAN).putShort(2, (short) port);
            b.put(4, address.getAddress());
            return b.array();
        }
        final ByteBuffer b = ByteBuffer.allocate(SOCKADDR_IN6_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(0, (short) AF_INET6);
        b.order(ByteOrder.BIG_ENDIAN).putShort(2, (short) port);
        b.put(8, address.getAddress());
        b.order(ByteOrder.LITTLE_ENDIAN).putInt(24, ((Inet6Address) address).getScopeId());
        return b.array();
    }

    /**
     * The address family of socket address bytes, without decoding the address.
     *
     * @param bytes the bytes, or null.
     * @return {@link #AF_INET} for a {@code sockaddr_in} ({@value #SOCKADDR_IN_LENGTH} bytes), {@link #AF_INET6}
     *         for a {@code sockaddr_in6} ({@value #SOCKADDR_IN6_LENGTH} bytes), -1 for anything else.
     */
    public static int family(final byte[] bytes)
    {
        if (bytes == null || bytes.length < 2)
        {
            return -1;
        }
        final int family = (bytes[0] & 0xFF) | ((bytes[1] & 0xFF) << 8);
        if (family == AF_INET && bytes.length == SOCKADDR_IN_LENGTH)
        {
            return AF_INET;
        }
        return family == AF_INET6 && bytes.length == SOCKADDR_IN6_LENGTH ? AF_INET6 : -1;
    }

    /**
     * Decodes a {@code sockaddr_in} or {@code sockaddr_in6}.
     *
     * @param bytes the address bytes.
     * @return the socket address.
     * @throws FabricException EINVAL when the bytes are not one of the two layouts.
     */
    public static InetSocketAddress decode(final byte[] bytes)
    {
        try
        {
            if (bytes != null && bytes.length >= 2)
            {
                final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
                final int family = b.getShort(0);
                final int port = b.order(ByteOrder.BIG_ENDIAN).getShort(2) & 0xFFFF;
                if (family == AF_INET && bytes.length == SOCKADDR_IN_LENGTH)
                {
                    final byte[] a = new byte[4];
                    b.get(4, a);
                    return new InetSocketAddress(InetAddress.getByAddress(a), port);
                }
                if (family == AF_INET6 && bytes.length == SOCKADDR_IN6_LENGTH)
                {
                    final byte[] a = new byte[16];
                    b.get(8, a);
                    return new InetSocketAddress(InetAddress.getByAddress(a), port);
                }
            }
        }
        catch (final UnknownHostException ex)
        {
            throw new FabricException(Errno.EINVAL, "bad socket address bytes", ex);
        }
        throw new FabricException(Errno.EINVAL, "bytes are neither a sockaddr_in nor a sockaddr_in6");
    }

    /**
     * Prints a socket address in its {@code FI_ADDR_STR} form, as {@code fi_tostr} does
     * ({@code fi_sockaddr_in://127.0.0.1:7471}, {@code fi_sockaddr_in6://[::1]:7471}).
     *
     * @param bytes the address bytes.
     * @return the text, or a hex dump when the bytes are not a socket address.
     */
    public static String toAddressString(final byte[] bytes)
    {
        try
        {
            final InetSocketAddress sa = decode(bytes);
            if (sa.getAddress() instanceof Inet4Address)
            {
                return "fi_sockaddr_in://" + sa.getAddress().getHostAddress() + ":" + sa.getPort();
            }
            return "fi_sockaddr_in6://[" + sa.getAddress().getHostAddress() + "]:" + sa.getPort();
        }
        catch (final FabricException ex)
        {
            return hex(bytes);
        }
    }

    /**
     * Hex dump of address bytes, {@code fi_addr_unspec://0x...} style.
     *
     * @param bytes the bytes.
     * @return the hex text.
     */
    static String hex(final byte[] bytes)
    {
        final StringBuilder sb = new StringBuilder("0x");
        for (final byte x : bytes)
        {
            sb.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
        }
        return sb.toString();
    }
}
