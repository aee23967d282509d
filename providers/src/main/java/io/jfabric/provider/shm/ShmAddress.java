package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;

/**
 * A shm address: a domain name (its ring file) and an endpoint index within that domain. Text form
 * ({@code FI_ADDR_STR}) {@code fi_shm://<name>} for endpoint 0 and {@code fi_shm://<name>:<endpoint>} otherwise;
 * binary form as {@link ShmAddressDescriptor} lays it out.
 * <p>
 * Immutable; control path only.
 *
 * @param name     the domain name, valid as {@link ShmRingDescriptor#validName} says.
 * @param endpoint the endpoint index, 0 to 65535.
 */
public record ShmAddress(String name, int endpoint)
{
    /** The {@code FI_ADDR_STR} scheme prefix. */
    public static final String SCHEME = "fi_shm://";
    /** Largest endpoint index an address can name. */
    public static final int MAX_ENDPOINT = 0xFFFF;

    /**
     * Validates the parts.
     *
     * @param name     the domain name.
     * @param endpoint the endpoint index.
     * @throws FabricException EINVAL for a bad name or index.
     */
    public ShmAddress
    {
        if (!ShmRingDescriptor.validName(name))
        {
            throw new FabricException(Errno.EINVAL, "shm name '" + name +
                "' must be 1-64 characters of [A-Za-z0-9._-], not starting with '.'");
        }
        if (endpoint < 0 || endpoint > MAX_ENDPOINT)
        {
            throw new FabricException(Errno.EINVAL, "shm endpoint index " + endpoint + " out of range 0.." +
                MAX_ENDPOINT);
        }
    }

    /**
     * Parse either form.
     *
     * @param address the bytes, text or binary.
     * @return the address, or null when the bytes are not a shm address.
     */
    public static ShmAddress parse(final byte[] address)
    {
        if (null == address || 0 == address.length)
        {
            return null;
        }
        if (ShmSockAddr.isSockAddr(address))
        {
            return ShmSockAddr.parse(address, false);
        }
        if (ShmAddressDescriptor.MARKER == address[0])
        {
            return parseBinary(address);
        }
        return parseText(new String(address, StandardCharsets.US_ASCII));
    }

    /**
     * Parse the text form, {@code fi_shm://<name>[:<endpoint>]}.
     *
     * @param text the text.
     * @return the address, or null when it is not one.
     */
    public static ShmAddress parseText(final String text)
    {
        if (null == text || !text.startsWith(SCHEME))
        {
            return null;
        }
        final String rest = text.substring(SCHEME.length());
        final int colon = rest.indexOf(':');
        final String name = colon < 0 ? rest : rest.substring(0, colon);
        int endpoint = 0;
        if (colon >= 0)
        {
            final String index = rest.substring(colon + 1);
            if (index.isEmpty() || index.length() > 5)
            {
                return null;
            }
            for (int i = 0; i < index.length(); i++)
            {
                if (index.charAt(i) < '0' || index.charAt(i) > '9')
                {
                    return null;
                }
            }
            endpoint = Integer.parseInt(index);
        }
        if (!ShmRingDescriptor.validName(name) || endpoint > MAX_ENDPOINT)
        {
            return null;
        }
        return new ShmAddress(name, endpoint);
    }

    private static ShmAddress parseBinary(final byte[] address)
    {
        if (address.length != ShmAddressDescriptor.LENGTH ||
            address[ShmAddressDescriptor.VERSION_OFFSET] != ShmAddressDescriptor.VERSION)
        {
            return null;
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(address);
        final int endpoint = buffer.getShort(ShmAddressDescriptor.ENDPOINT_OFFSET) & 0xFFFF;
        final int length = buffer.getInt(ShmAddressDescriptor.NAME_LENGTH_OFFSET);
        if (length < 1 || length > ShmRingDescriptor.MAX_NAME_LENGTH)
        {
            return null;
        }
        for (int i = ShmAddressDescriptor.NAME_OFFSET + length; i < ShmAddressDescriptor.LENGTH; i++)
        {
            if (0 != address[i])
            {
                return null;
            }
        }
        final String name = new String(address, ShmAddressDescriptor.NAME_OFFSET, length, StandardCharsets.US_ASCII);
        return ShmRingDescriptor.validName(name) ? new ShmAddress(name, endpoint) : null;
    }

    /**
     * @return the {@code FI_ADDR_STR} text.
     */
    public String text()
    {
        return 0 == endpoint ? SCHEME + name : SCHEME + name + ":" + endpoint;
    }

    /**
     * @return the text form as ASCII bytes (what {@code fi_getname} gives).
     */
    public byte[] textBytes()
    {
        return text().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @return the binary form.
     */
    public byte[] binary()
    {
        final byte[] out = new byte[ShmAddressDescriptor.LENGTH];
        final UnsafeBuffer buffer = new UnsafeBuffer(out);
        buffer.putByte(ShmAddressDescriptor.MARKER_OFFSET, ShmAddressDescriptor.MARKER);
        buffer.putByte(ShmAddressDescriptor.VERSION_OFFSET, ShmAddressDescriptor.VERSION);
        buffer.putShort(ShmAddressDescriptor.ENDPOINT_OFFSET, (short) endpoint);
        final byte[] ascii = name.getBytes(StandardCharsets.US_ASCII);
        buffer.putInt(ShmAddressDescriptor.NAME_LENGTH_OFFSET, ascii.length);
        buffer.putBytes(ShmAddressDescriptor.NAME_OFFSET, ascii);
        return out;
    }

    /**
     * The binary form of an address given in either form.
     *
     * @param address text or binary bytes.
     * @return the binary form.
     * @throws FabricException EINVAL when the bytes are not a shm address.
     */
    public static byte[] toBinary(final byte[] address)
    {
        final ShmAddress parsed = parse(address);
        if (null == parsed)
        {
            throw new FabricException(Errno.EINVAL, "not a shm address: " +
                (null == address ? "null" : new String(address, StandardCharsets.US_ASCII)));
        }
        return parsed.binary();
    }

    @Override
    public String toString()
    {
        return text();
    }
}
