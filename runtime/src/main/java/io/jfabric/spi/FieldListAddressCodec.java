package io.jfabric.spi;

import io.jfabric.AddressFormat;
import io.jfabric.AddressString;
import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@link AddressCodec#fields}: {@code scheme;node;service;f1;...;fn}. Immutable, thread-safe.
 */
final class FieldListAddressCodec implements AddressCodec
{
    private final String scheme;
    private final String prefix;
    private final AddressFormat format;
    private final List<String> fieldNames;
    private final int optionalTrailing;

    FieldListAddressCodec(
        final String scheme, final AddressFormat format, final List<String> fieldNames, final int optionalTrailing)
    {
        if (null == scheme || !scheme.matches("[a-z][a-z0-9_+.-]*") || optionalTrailing < 0 ||
            optionalTrailing > fieldNames.size())
        {
            throw new FabricException(Errno.EINVAL, "address codec '" + scheme + "' with " + fieldNames.size() +
                " fields, " + optionalTrailing + " optional");
        }
        this.scheme = scheme;
        this.prefix = scheme + ";";
        this.format = format;
        this.fieldNames = List.copyOf(fieldNames);
        this.optionalTrailing = optionalTrailing;
    }

    @Override
    public String scheme()
    {
        return scheme;
    }

    @Override
    public AddressFormat addressFormat()
    {
        return format;
    }

    @Override
    public boolean recognizes(final String text)
    {
        return null != text && text.trim().toLowerCase(Locale.ROOT).startsWith(prefix);
    }

    @Override
    public AddressString parse(final String text)
    {
        final String[] parts = text.trim().split(";", -1);
        final int most = 3 + fieldNames.size();
        if (!recognizes(text) || parts.length > most || parts.length < most - optionalTrailing)
        {
            throw new FabricException(Errno.EINVAL, "FI_ADDR_STR '" + text + "' needs the fields " + scheme +
                ";node;service;" + String.join(";", fieldNames) +
                (optionalTrailing > 0 ? " (the last " + optionalTrailing + " optional)" : ""));
        }
        final Map<String, String> params = new LinkedHashMap<>();
        for (int i = 3; i < parts.length; i++)
        {
            params.put(fieldNames.get(i - 3), parts[i]);
        }
        return new AddressString(scheme, emptyToNull(parts[1]), emptyToNull(parts[2]), null, params);
    }

    @Override
    public String format(final AddressString address)
    {
        final StringBuilder sb = new StringBuilder(scheme);
        sb.append(';').append(null == address.node() ? "" : address.node())
            .append(';').append(null == address.service() ? "" : address.service());
        for (final String f : fieldNames)
        {
            final String v = address.params().get(f);
            if (null != v)
            {
                sb.append(';').append(v);
            }
        }
        return sb.toString();
    }

    private static String emptyToNull(final String s)
    {
        return null == s || s.isEmpty() ? null : s;
    }
}
