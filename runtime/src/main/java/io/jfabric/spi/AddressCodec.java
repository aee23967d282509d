package io.jfabric.spi;

import io.jfabric.AddressFormat;
import io.jfabric.AddressString;

import java.util.List;

/**
 * A provider's own {@code FI_ADDR_STR} form, for addresses that are not written as
 * {@code scheme://node:service/...} (those the runtime parses itself). A provider returns its codecs from
 * {@link Provider#addressCodecs()}; discovery asks every provider's codecs whether a node string is theirs before
 * it falls back to the generic form, so the runtime itself names no provider's address syntax.
 * <p>
 * {@link #fields} builds the common shape, {@code scheme;node;service;field...;field} (fi_gni(7)'s
 * {@code gni;node;service;version;device_addr;...}), from the scheme and the field names.
 * <p>
 * Threading: implementations are immutable and thread-safe. Control path only (discovery).
 */
public interface AddressCodec
{
    /**
     * @return the scheme, lower case: {@link AddressString#scheme()} of every address this codec parses.
     */
    String scheme();

    /**
     * @return the address format these addresses resolve to ({@code FI_ADDR_GNI} for instance), or null.
     */
    AddressFormat addressFormat();

    /**
     * Whether a node string is written in this codec's form.
     *
     * @param text the node (trimmed or not).
     * @return true when {@link #parse} should read it.
     */
    boolean recognizes(String text);

    /**
     * Parse an address this codec {@link #recognizes}.
     *
     * @param text the address.
     * @return the parsed address, its {@link AddressString#scheme()} equal to {@link #scheme()}.
     * @throws io.jfabric.FabricException EINVAL naming the text when it is not well formed.
     */
    AddressString parse(String text);

    /**
     * Print an address of this scheme back in this codec's form.
     *
     * @param address an address of this codec's scheme.
     * @return the text {@link #parse} reads back into an equal address.
     */
    String format(AddressString address);

    /**
     * Whether the node of such an address is a host name or numeric host, to which {@code FI_NUMERICHOST} applies.
     *
     * @return false by default: the node is a fabric-specific name no lookup resolves.
     */
    default boolean nodeIsHost()
    {
        return false;
    }

    /**
     * A codec for {@code scheme;node;service;f1;...;fn}: the fields after the service land in
     * {@link AddressString#params()} under {@code fieldNames}, in order; the last {@code optionalTrailing} fields
     * may be left out.
     *
     * @param scheme           the scheme, lower case, the text before the first {@code ;}.
     * @param format           the address format, or null.
     * @param fieldNames       the names of the fields after the service, in order.
     * @param optionalTrailing how many of the last fields may be missing.
     * @return the codec.
     */
    static AddressCodec fields(
        final String scheme, final AddressFormat format, final List<String> fieldNames, final int optionalTrailing)
    {
        return new FieldListAddressCodec(scheme, format, fieldNames, optionalTrailing);
    }
}
