package io.jfabric.provider.aeron;

import io.jfabric.SockAddr;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

/**
 * An aeron address: the UDP host and port a domain listens on, the stream id of its requests (its answers use the
 * next one) and an endpoint index within the domain. Text form ({@code FI_ADDR_STR})
 * {@code fi_aeron://<host>:<port>[/<stream>[/<endpoint>]]} (an IPv6 host in brackets; stream
 * {@link AeronConfiguration#DEFAULT_STREAM} and endpoint 0 when left out); a {@code struct sockaddr_in} or
 * {@code sockaddr_in6} ({@code FI_SOCKADDR_IN}/{@code IN6}) names endpoint 0 of the default stream.
 * <p>
 * Immutable; control path only.
 *
 * @param host     the host, a name or a numeric address (without brackets).
 * @param port     the UDP port, 0 (any, only for a local address) to 65535.
 * @param stream   the stream id of the domain's requests.
 * @param endpoint the endpoint index, 0 to 65535.
 */
record AeronAddress(String host, int port, int stream, int endpoint)
{
    /** The {@code FI_ADDR_STR} scheme prefix. */
    static final String SCHEME = "fi_aeron://";
    /** Largest endpoint index an address can name. */
    static final int MAX_ENDPOINT = 0xFFFF;

    /**
     * Parse the text form or a socket address.
     *
     * @param address the bytes.
     * @return the address, or null when they are not an aeron address.
     */
    static AeronAddress parse(final byte[] address)
    {
        if (null == address || 0 == address.length)
        {
            return null;
        }
        final int family = SockAddr.family(address);
        if (SockAddr.AF_INET == family || SockAddr.AF_INET6 == family)
        {
            final InetSocketAddress socket = SockAddr.decode(address);
            return null == socket ? null :
                new AeronAddress(socket.getAddress().getHostAddress(), socket.getPort(),
                    AeronConfiguration.DEFAULT_STREAM, 0);
        }
        int length = address.length;
        while (length > 0 && 0 == address[length - 1])
        {
            length--; // a C string's terminating NUL
        }
        return parseText(new String(address, 0, length, StandardCharsets.US_ASCII));
    }

    /**
     * Parse {@code fi_aeron://<host>:<port>[/<stream>[/<endpoint>]]}.
     *
     * @param text the text.
     * @return the address, or null when it is not one.
     */
    static AeronAddress parseText(final String text)
    {
        if (null == text || !text.startsWith(SCHEME))
        {
            return null;
        }
        final String rest = text.substring(SCHEME.length());
        final int slash = rest.indexOf('/');
        final String hostPort = slash < 0 ? rest : rest.substring(0, slash);
        final String path = slash < 0 ? null : rest.substring(slash + 1);
        final String host;
        final String portText;
        if (hostPort.startsWith("["))
        {
            final int close = hostPort.indexOf(']');
            if (close < 0 || close + 1 >= hostPort.length() || ':' != hostPort.charAt(close + 1))
            {
                return null;
            }
            host = hostPort.substring(1, close);
            portText = hostPort.substring(close + 2);
        }
        else
        {
            final int colon = hostPort.lastIndexOf(':');
            if (colon <= 0 || hostPort.indexOf(':') != colon)
            {
                return null;
            }
            host = hostPort.substring(0, colon);
            portText = hostPort.substring(colon + 1);
        }
        final int port = number(portText, 0xFFFF);
        if (host.isEmpty() || port < 0)
        {
            return null;
        }
        int stream = AeronConfiguration.DEFAULT_STREAM;
        int endpoint = 0;
        if (null != path)
        {
            final int second = path.indexOf('/');
            stream = number(second < 0 ? path : path.substring(0, second), Integer.MAX_VALUE - 1);
            endpoint = second < 0 ? 0 : number(path.substring(second + 1), MAX_ENDPOINT);
            if (stream < 0 || endpoint < 0)
            {
                return null;
            }
        }
        return new AeronAddress(host, port, stream, endpoint);
    }

    private static int number(final String text, final int max)
    {
        if (text.isEmpty() || text.length() > 10)
        {
            return -1;
        }
        for (int i = 0; i < text.length(); i++)
        {
            if (text.charAt(i) < '0' || text.charAt(i) > '9')
            {
                return -1;
            }
        }
        final long value = Long.parseLong(text);
        return value > max ? -1 : (int) value;
    }

    /**
     * The same address with its host resolved to a numeric address (a name lookup unless it is numeric already).
     *
     * @return the resolved address, or null when the host does not resolve.
     */
    AeronAddress resolved()
    {
        try
        {
            final InetAddress address = InetAddress.getByName(host);
            final String numeric = address.getHostAddress();
            return numeric.equals(host) ? this : new AeronAddress(numeric, port, stream, endpoint);
        }
        catch (final UnknownHostException ex)
        {
            return null;
        }
    }

    /**
     * @param index an endpoint index.
     * @return this domain address with that endpoint.
     */
    AeronAddress withEndpoint(final int index)
    {
        return new AeronAddress(host, port, stream, index);
    }

    /**
     * @return the key of the domain this address belongs to: host, port and stream, without the endpoint.
     */
    String domainKey()
    {
        return hostPort() + "/" + stream;
    }

    /**
     * @return {@code host:port}, an IPv6 host in brackets, as Aeron's {@code endpoint} parameter takes it.
     */
    String hostPort()
    {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /**
     * @return the text form; the endpoint is written only when it is not 0.
     */
    String text()
    {
        return SCHEME + domainKey() + (0 == endpoint ? "" : "/" + endpoint);
    }

    /**
     * @return the text form as ASCII bytes.
     */
    byte[] textBytes()
    {
        return text().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @return the Aeron channel of this domain's subscriptions and of the publications to it.
     */
    String channel()
    {
        return "aeron:udp?endpoint=" + hostPort();
    }
}
