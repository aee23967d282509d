package io.jfabric;

import io.jfabric.spi.AddressCodec;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A parsed {@code FI_ADDR_STR} address:
 * {@code address_format[://[node][:[service][/[field3]...][?[key=value][&k2=v2]...]]]}, for example
 * {@code fi_sockaddr_in://127.0.0.1:7471}, {@code fi_sockaddr_in6://[fe80::6:12]:7471},
 * {@code fi_shm://name}, or a provider's own form read by its {@link AddressCodec} (fi_gni(7)'s
 * {@code gni;node;service;version;...}, its fields after the service in {@link #params()} under their names):
 * the overloads that take codecs try them first ({@code Fabric.getInfo} passes every provider's).
 * <p>
 * Immutable and thread-safe. Control path only.
 *
 * @param scheme  the address format part in lower case ({@code fi_sockaddr_in}, {@code fi_shm}, {@code gni}).
 * @param node    the node, without IPv6 brackets; null when absent.
 * @param service the service; null when absent.
 * @param path    the fields after the service ({@code /f3/f4}), without the leading slash; null when absent.
 * @param params  the {@code key=value} parameters in their order; never null.
 */
public record AddressString(String scheme, String node, String service, String path, Map<String, String> params)
{
    /**
     * Freezes the parameter map.
     *
     * @param scheme  see {@link #scheme()}.
     * @param node    see {@link #node()}.
     * @param service see {@link #service()}.
     * @param path    see {@link #path()}.
     * @param params  see {@link #params()}.
     */
    public AddressString
    {
        params = params == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    /**
     * Whether a node string is written in the generic {@code FI_ADDR_STR} form (it has a {@code scheme://}, or is
     * a bare {@code fi_*} format name).
     *
     * @param text the node.
     * @return true when {@link #parse(String)} should be used on it.
     */
    public static boolean isAddressString(final String text)
    {
        if (text == null)
        {
            return false;
        }
        final String t = text.trim();
        return t.matches("[A-Za-z][A-Za-z0-9_+.-]*://.*") || t.toLowerCase(Locale.ROOT).matches("fi_[a-z0-9_]+");
    }

    /**
     * Whether a node string is an {@code FI_ADDR_STR} address: one of the codecs recognizes it, or it is in the
     * generic form.
     *
     * @param text   the node.
     * @param codecs the providers' codecs.
     * @return true when {@link #parse(String, List)} should be used on it.
     */
    public static boolean isAddressString(final String text, final List<AddressCodec> codecs)
    {
        return null != codecOf(text, codecs) || isAddressString(text);
    }

    /**
     * Parses an {@code FI_ADDR_STR} address with the first codec that recognizes it, else in the generic form.
     *
     * @param text   the address.
     * @param codecs the providers' codecs.
     * @return the parsed address.
     * @throws FabricException EINVAL naming the text when it is not well formed.
     */
    public static AddressString parse(final String text, final List<AddressCodec> codecs)
    {
        final AddressCodec codec = codecOf(text, codecs);
        return null != codec ? codec.parse(text) : parse(text);
    }

    private static AddressCodec codecOf(final String text, final List<AddressCodec> codecs)
    {
        if (null != text)
        {
            for (final AddressCodec codec : codecs)
            {
                if (codec.recognizes(text))
                {
                    return codec;
                }
            }
        }
        return null;
    }

    /**
     * The codec of this address's scheme among {@code codecs}, or null (a generic form).
     *
     * @param codecs the providers' codecs.
     * @return the codec or null.
     */
    public AddressCodec codec(final List<AddressCodec> codecs)
    {
        for (final AddressCodec codec : codecs)
        {
            if (codec.scheme().equals(scheme))
            {
                return codec;
            }
        }
        return null;
    }

    /**
     * The address format: the codec's of this scheme, else as {@link #format()}.
     *
     * @param codecs the providers' codecs.
     * @return the format or null.
     */
    public AddressFormat format(final List<AddressCodec> codecs)
    {
        final AddressCodec codec = codec(codecs);
        return null != codec ? codec.addressFormat() : format();
    }

    /**
     * Parses an {@code FI_ADDR_STR} address in the generic form.
     *
     * @param text the address.
     * @return the parsed address.
     * @throws FabricException EINVAL naming the text when it is not well formed.
     */
    public static AddressString parse(final String text)
    {
        if (text == null || text.isBlank())
        {
            throw new FabricException(Errno.EINVAL, "empty FI_ADDR_STR address");
        }
        final String t = text.trim();
        final int sep = t.indexOf("://");
        final String scheme = (sep < 0 ? t : t.substring(0, sep)).toLowerCase(Locale.ROOT);
        if (scheme.isEmpty() || !scheme.matches("[a-z][a-z0-9_+.-]*"))
        {
            throw new FabricException(Errno.EINVAL, "FI_ADDR_STR address '" + text + "' has no valid format prefix");
        }
        if (sep < 0)
        {
            return new AddressString(scheme, null, null, null, null);
        }
        String rest = t.substring(sep + 3);
        final Map<String, String> params = new LinkedHashMap<>();
        final int q = rest.indexOf('?');
        if (q >= 0)
        {
            for (final String kv : rest.substring(q + 1).split("&"))
            {
                if (kv.isEmpty())
                {
                    continue;
                }
                final int eq = kv.indexOf('=');
                if (eq <= 0)
                {
                    throw new FabricException(
                        Errno.EINVAL, "FI_ADDR_STR address '" + text + "' has a parameter without key=value: " + kv);
                }
                params.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
            rest = rest.substring(0, q);
        }
        String path = null;
        String node;
        String service = null;
        final int slash;
        if (rest.startsWith("["))
        {
            final int close = rest.indexOf(']');
            if (close < 0)
            {
                throw new FabricException(Errno.EINVAL, "FI_ADDR_STR address '" + text + "' has an unclosed '['");
            }
            node = rest.substring(1, close);
            String after = rest.substring(close + 1);
            slash = after.indexOf('/');
            if (slash >= 0)
            {
                path = after.substring(slash + 1);
                after = after.substring(0, slash);
            }
            if (after.startsWith(":"))
            {
                service = after.substring(1);
            }
            else if (!after.isEmpty())
            {
                throw new FabricException(Errno.EINVAL, "FI_ADDR_STR address '" + text + "' has junk after ']'");
            }
        }
        else
        {
            slash = rest.indexOf('/');
            if (slash >= 0)
            {
                path = rest.substring(slash + 1);
                rest = rest.substring(0, slash);
            }
            final int colon = rest.lastIndexOf(':');
            if (colon >= 0 && rest.indexOf(':') == colon)
            {
                node = rest.substring(0, colon);
                service = rest.substring(colon + 1);
            }
            else
            {
                node = rest;
            }
        }
        return new AddressString(scheme, emptyToNull(node), emptyToNull(service), emptyToNull(path), params);
    }

    /**
     * The address format the scheme names ({@code fi_sockaddr_in} is {@link AddressFormat#SOCKADDR_IN},
     * {@code fi_addr_gni} is {@link AddressFormat#GNI}), or null for a provider-specific scheme such as
     * {@code fi_shm} (a codec's scheme: see {@link #format(List)}).
     *
     * @return the format or null.
     */
    public AddressFormat format()
    {
        for (final AddressFormat f : AddressFormat.values())
        {
            if (f != AddressFormat.UNSPEC && f.fiName().equalsIgnoreCase(scheme))
            {
                return f;
            }
        }
        return null;
    }

    /**
     * Prints the address back in the generic {@code FI_ADDR_STR} form (a codec's form: {@link AddressCodec#format}).
     *
     * @return the address text.
     */
    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder(scheme);
        if (node == null && service == null && path == null && params.isEmpty())
        {
            return sb.toString();
        }
        sb.append("://");
        if (node != null)
        {
            sb.append(node.indexOf(':') >= 0 ? "[" + node + "]" : node);
        }
        if (service != null)
        {
            sb.append(':').append(service);
        }
        if (path != null)
        {
            sb.append('/').append(path);
        }
        String sep = "?";
        for (final Map.Entry<String, String> e : params.entrySet())
        {
            sb.append(sep).append(e.getKey()).append('=').append(e.getValue());
            sep = "&";
        }
        return sb.toString();
    }

    private static String emptyToNull(final String s)
    {
        return s == null || s.isEmpty() ? null : s;
    }
}
