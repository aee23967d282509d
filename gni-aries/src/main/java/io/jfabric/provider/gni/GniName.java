package io.jfabric.provider.gni;

import io.jfabric.AddressString;
import io.jfabric.FabricException;
import io.jfabric.aries.GniAddress;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The endpoint names of the {@code gni} provider (GNI.md §2.13): the 48-byte {@code struct gnix_ep_name} of
 * {@code FI_ADDR_GNI} and its 66-character {@code FI_ADDR_STR} text
 * {@code gni;NONE;NONE;0001;0x<device>;0x<cdm>;<name type>;0x<cm nic cdm>;0x<cookie>;<rx ctx cnt>}.
 * <p>
 * An endpoint of this provider is named by its domain's NIC (device address, inst id = {@code cm_nic_cdm_id}) and
 * its index in the domain: {@code cdm_id = endpoint << 16 | inst id}. The peer key the runtime uses (and an AV in MAP
 * mode hands out as {@code fi_addr}) is upstream's {@code gnix_address} as one number: {@code cdm_id << 32 |
 * device_addr}.
 * <p>
 * Stateless; thread-safe; control path only.
 */
public final class GniName
{
    /** Bytes of the binary name. */
    public static final int LENGTH = 48;
    /** Characters of the text name (a 70-byte buffer upstream, with room for the NUL and a key offset). */
    public static final int STRING_LENGTH = 66;
    /** {@code GNIX_EPN_TYPE_BOUND}. */
    public static final int NAME_TYPE_BOUND = 2;
    /**
     * Endpoints per domain, the runtime's 256 (a scalable endpoint with 128 transmit and 128 receive contexts takes
     * them all): the index rides in bits 16..30 of {@code cdm_id}, which stays positive.
     */
    public static final int MAX_ENDPOINTS = 256;
    /** Bits of {@code cdm_id} below the endpoint index: the domain NIC's inst id. */
    static final int INST_BITS = 16;
    private static final int INST_MASK = (1 << INST_BITS) - 1;

    private GniName()
    {
    }

    /**
     * @param device   device address.
     * @param instId   the domain NIC's inst id (16 bits).
     * @param endpoint endpoint index.
     * @return the peer key.
     */
    public static long key(final int device, final int instId, final int endpoint)
    {
        return ((long) ((endpoint << INST_BITS) | (instId & INST_MASK)) << 32) | (device & 0xFFFF_FFFFL);
    }

    /**
     * @param key a peer key.
     * @return its device address.
     */
    public static int device(final long key)
    {
        return (int) key;
    }

    /**
     * @param key a peer key.
     * @return its NIC's inst id.
     */
    public static int instId(final long key)
    {
        return (int) (key >>> 32) & INST_MASK;
    }

    /**
     * @param key a peer key.
     * @return its endpoint index.
     */
    public static int endpoint(final long key)
    {
        return (int) (key >>> (32 + INST_BITS));
    }

    /**
     * The binary name.
     *
     * @param key    the peer key.
     * @param cookie the domain's cookie.
     * @return 48 bytes.
     */
    public static byte[] binary(final long key, final int cookie)
    {
        final ByteBuffer b = ByteBuffer.allocate(LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, device(key));
        b.putInt(4, (int) (key >>> 32));
        b.putInt(8, NAME_TYPE_BOUND | (instId(key) << 8));
        b.putInt(12, cookie);
        b.putInt(16, 1);
        return b.array();
    }

    /**
     * The text name.
     *
     * @param key    the peer key.
     * @param cookie the domain's cookie.
     * @return the 66 characters.
     */
    public static String text(final long key, final int cookie)
    {
        return String.format("gni;NONE;NONE;0001;0x%08x;0x%08x;%02d;0x%06x;0x%08x;%02d",
            device(key), (int) (key >>> 32), NAME_TYPE_BOUND, instId(key), cookie, 1);
    }

    /**
     * {@code fi_av_straddr} of a binary name (upstream's {@code gnix_av_straddr}, GNI.md §2.13):
     * {@code version:device_addr:cdm_id:name_type:cm_nic_cdm_id:cookie:rx_ctx_cnt}, 52 characters.
     *
     * @param address the bytes.
     * @return the text, or null when they are not a 48-byte binary name (a text name prints as itself).
     */
    public static String straddr(final byte[] address)
    {
        if (null == address || LENGTH != address.length)
        {
            return null;
        }
        final ByteBuffer b = ByteBuffer.wrap(address).order(ByteOrder.LITTLE_ENDIAN);
        final int typeAndCmNic = b.getInt(8);
        return String.format("%04d:0x%08x:0x%08x:%02d:0x%06x:0x%08x:%02d", 1, b.getInt(0), b.getInt(4),
            typeAndCmNic & 0xFF, typeAndCmNic >>> 8, b.getInt(12), b.getInt(16) & 0xFF);
    }

    /**
     * Parse a name, binary or text.
     *
     * @param address the bytes.
     * @return the peer key, or -1 when they are neither form.
     */
    public static long parse(final byte[] address)
    {
        if (null == address)
        {
            return -1;
        }
        if (address.length >= 4 && 'g' == address[0] && 'n' == address[1] && 'i' == address[2] && ';' == address[3])
        {
            try
            {
                String text = new String(address, StandardCharsets.US_ASCII);
                final int nul = text.indexOf('\0');
                text = nul >= 0 ? text.substring(0, nul) : text;
                final AddressString parsed = GniAddress.CODEC.parse(text);
                if (null == parsed)
                {
                    return -1;
                }
                final long nic = GniAddress.nicAddress(parsed);
                return (int) nic < 0 ? -1 : (nic >>> 32) | (nic << 32);
            }
            catch (final FabricException | IllegalArgumentException ex)
            {
                return -1;
            }
        }
        if (LENGTH != address.length)
        {
            return -1;
        }
        final ByteBuffer b = ByteBuffer.wrap(address).order(ByteOrder.LITTLE_ENDIAN);
        final int cdm = b.getInt(4);
        return cdm < 0 ? -1 : ((long) cdm << 32) | (b.getInt(0) & 0xFFFF_FFFFL);
    }
}
