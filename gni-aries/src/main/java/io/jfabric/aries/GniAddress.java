package io.jfabric.aries;

import io.jfabric.AddressFormat;
import io.jfabric.AddressString;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.AddressCodec;

import java.util.List;

/**
 * fi_gni(7)'s {@code FI_ADDR_STR} form,
 * {@code gni;node;service;version;device_addr;cdm_id;name_type;cm_nic_cdm_id;cookie;rx_ctx_cnt[;key_offset]}, as
 * the codec a gni provider returns from {@code Provider.addressCodecs()} (the runtime itself knows no gni syntax),
 * and the endpoint address it names on the emulated NIC: the pair (device_addr, cdm_id).
 * <p>
 * Stateless; thread-safe. Control path only.
 */
public final class GniAddress
{
    /** The field names after {@code gni;node;service}, in order ({@code key_offset} may be left out). */
    public static final List<String> FIELDS = List.of(
        "version", "device_addr", "cdm_id", "name_type", "cm_nic_cdm_id", "cookie", "rx_ctx_cnt", "key_offset");

    /** The codec of the form: scheme {@code gni}, format {@link AddressFormat#GNI}. */
    public static final AddressCodec CODEC = AddressCodec.fields("gni", AddressFormat.GNI, FIELDS, 1);

    private GniAddress()
    {
    }

    /**
     * The NIC address of a parsed gni address: {@code device_addr} in the upper 32 bits, {@code cdm_id} (the
     * instance id) in the lower 32, as {@code include/gnix.h}'s {@code gnix_address} pair.
     *
     * @param address an address {@link #CODEC} parsed.
     * @return the pair.
     * @throws FabricException EINVAL when a field is missing or not a 32-bit number (decimal, 0x hex or 0 octal).
     */
    public static long nicAddress(final AddressString address)
    {
        return (field(address, "device_addr") << 32) | field(address, "cdm_id");
    }

    private static long field(final AddressString address, final String name)
    {
        final String text = address.params().get(name);
        try
        {
            final long value = Long.decode(null == text ? "" : text);
            if (value < 0 || value > 0xFFFF_FFFFL)
            {
                throw new NumberFormatException("not 32 bits");
            }
            return value;
        }
        catch (final NumberFormatException ex)
        {
            throw new FabricException(Errno.EINVAL, "gni address field " + name + "='" + text + "': " +
                ex.getMessage());
        }
    }
}
