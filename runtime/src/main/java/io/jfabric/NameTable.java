package io.jfabric;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one parse/print helper behind every named OFI constant set ({@link Flags}, {@link Mode},
 * {@link MrMode}, {@link MsgOrder}, {@link CompOrder} and the enums such as {@link EndpointType}).
 * <p>
 * Each entry has a canonical libfabric name ({@code FI_TAGGED}, {@code FI_EP_RDM}) and a value; further
 * spellings (aliases such as {@code FI_ATOMICS}, or short forms such as {@code rdm}) resolve to the same
 * value but are never printed. Lookup is case-insensitive and accepts the {@code FI_} prefix, the
 * kfabric {@code KFI_} prefix or no prefix at all.
 * <p>
 * Bit sets print as {@code fi_tostr} does: the canonical names of the set bits joined with
 * {@code " | "}, in table order, and any bit without a name as a hexadecimal remainder.
 * <p>
 * Built once during class initialisation and read-only afterwards: thread-safe. Control path only.
 */
final class NameTable
{
    private final String kind;
    private final List<String> names = new ArrayList<>();
    private final List<Long> values = new ArrayList<>();
    private final Map<String, Long> byKey = new HashMap<>();
    private final Map<Long, String> byValue = new HashMap<>();

    /**
     * An empty table.
     *
     * @param kind what the names denote, for error messages ({@code "capability"}, {@code "mode"}).
     */
    NameTable(final String kind)
    {
        this.kind = kind;
    }

    /**
     * Adds a canonical name and its value. The first canonical name of a value is the one printed.
     *
     * @param fiName     the libfabric name, with its {@code FI_} prefix.
     * @param value      the value.
     * @param shortForms further accepted spellings without prefix (for example {@code "rdm"}).
     * @return this table.
     */
    NameTable add(final String fiName, final long value, final String... shortForms)
    {
        names.add(fiName);
        values.add(value);
        byValue.putIfAbsent(value, fiName);
        register(fiName, value);
        for (final String s : shortForms)
        {
            register(s, value);
        }
        return this;
    }

    /**
     * Adds a parse-only alias for a value ({@code FI_ATOMICS} for {@code FI_ATOMIC}); never printed.
     *
     * @param fiName the alias, with its {@code FI_} prefix.
     * @param value  the value it stands for.
     * @return this table.
     */
    NameTable alias(final String fiName, final long value)
    {
        register(fiName, value);
        return this;
    }

    /**
     * What the names of this table denote.
     *
     * @return the kind, e.g. {@code "capability"}.
     */
    String kind()
    {
        return kind;
    }

    /**
     * Parses one name.
     *
     * @param text the name ({@code FI_EP_RDM}, {@code KFI_EP_RDM}, {@code ep_rdm}, {@code rdm}).
     * @return its value.
     * @throws FabricException EINVAL naming the input and listing the valid names when unknown.
     */
    long parseOne(final String text)
    {
        if (text == null)
        {
            throw new FabricException(Errno.EINVAL, kind + " name is null; valid: " + validNames());
        }
        final Long v = byKey.get(key(text));
        if (v == null)
        {
            throw new FabricException(
                Errno.EINVAL, "unknown " + kind + " '" + text.trim() + "'; valid: " + validNames());
        }
        return v;
    }

    /**
     * Whether a name is known to this table.
     *
     * @param text the name in any accepted spelling.
     * @return true when {@link #parseOne(String)} would succeed.
     */
    boolean contains(final String text)
    {
        return text != null && byKey.containsKey(key(text));
    }

    /**
     * Parses a set of names separated by {@code |}, {@code ,}, {@code +} or white space
     * ({@code "FI_MSG|FI_TAGGED"}, {@code "msg,tagged"}). A number ({@code 0x18}, {@code 24}) is taken
     * as the raw bits. An empty text is 0.
     *
     * @param text the names.
     * @return the bitwise OR of their values.
     * @throws FabricException EINVAL naming the first unknown name and listing the valid names.
     */
    long parseBits(final String text)
    {
        if (text == null)
        {
            return 0;
        }
        long bits = 0;
        for (final String token : text.split("[|,+\\s]+"))
        {
            if (token.isEmpty())
            {
                continue;
            }
            final Long raw = number(token);
            bits |= raw != null ? raw : parseOne(token);
        }
        return bits;
    }

    /**
     * The canonical name of a value (for enum-like tables).
     *
     * @param value the value.
     * @return its canonical name, or the number in decimal when it has none.
     */
    String nameOf(final long value)
    {
        final String n = byValue.get(value);
        return n != null ? n : Long.toString(value);
    }

    /**
     * Prints a bit set as {@code fi_tostr} does: {@code "FI_MSG | FI_TAGGED"}; bits without a name follow
     * as one hexadecimal value; an empty set prints as the empty string.
     *
     * @param bits the bit set.
     * @return the printed form.
     */
    String printBits(final long bits)
    {
        final StringBuilder sb = new StringBuilder();
        long rest = bits;
        for (int i = 0; i < names.size(); i++)
        {
            final long v = values.get(i);
            if (v != 0 && (bits & v) == v && (rest & v) != 0)
            {
                if (sb.length() > 0)
                {
                    sb.append(" | ");
                }
                sb.append(names.get(i));
                rest &= ~v;
            }
        }
        if (rest != 0)
        {
            if (sb.length() > 0)
            {
                sb.append(" | ");
            }
            sb.append("0x").append(Long.toHexString(rest));
        }
        return sb.toString();
    }

    /**
     * The canonical names of the set bits, in table order (bits without a name are left out).
     *
     * @param bits the bit set.
     * @return the names.
     */
    List<String> namesOf(final long bits)
    {
        final List<String> out = new ArrayList<>();
        long rest = bits;
        for (int i = 0; i < names.size(); i++)
        {
            final long v = values.get(i);
            if (v != 0 && (bits & v) == v && (rest & v) != 0)
            {
                out.add(names.get(i));
                rest &= ~v;
            }
        }
        return out;
    }

    /**
     * Every canonical name, comma separated, for error messages.
     *
     * @return the list of valid names.
     */
    String validNames()
    {
        return String.join(", ", names);
    }

    /**
     * Every canonical name in table order.
     *
     * @return an unmodifiable list of names.
     */
    List<String> canonicalNames()
    {
        return List.copyOf(names);
    }

    private void register(final String name, final long value)
    {
        byKey.putIfAbsent(key(name), value);
    }

    /**
     * Normalises a spelling: upper case, dashes as underscores, the kfabric {@code KFI_} and libfabric
     * {@code FI_} prefixes removed.
     */
    static String key(final String text)
    {
        String n = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        if (n.startsWith("KFI_"))
        {
            n = n.substring(4);
        }
        else if (n.startsWith("FI_"))
        {
            n = n.substring(3);
        }
        return n;
    }

    private static Long number(final String token)
    {
        try
        {
            if (token.startsWith("0x") || token.startsWith("0X"))
            {
                return Long.parseUnsignedLong(token.substring(2), 16);
            }
            if (Character.isDigit(token.charAt(0)))
            {
                return Long.parseUnsignedLong(token);
            }
        }
        catch (final NumberFormatException ignore)
        {
            // not a number: fall through to name lookup, which reports it
        }
        return null;
    }
}
