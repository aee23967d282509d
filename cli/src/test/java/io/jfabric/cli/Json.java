package io.jfabric.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON parser for the tests: objects become {@link Map}s, arrays {@link List}s, numbers
 * {@link Double}s, and the whole input must be exactly one value (surrounding whitespace allowed).
 */
final class Json
{
    private final String text;
    private int pos;

    private Json(final String text)
    {
        this.text = text;
    }

    static Object parse(final String text)
    {
        final Json json = new Json(text);
        json.skipSpace();
        final Object value = json.value();
        json.skipSpace();
        if (json.pos != text.length())
        {
            throw new IllegalArgumentException("trailing text at " + json.pos + ": " + text.substring(json.pos));
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(final Object value)
    {
        if (!(value instanceof Map))
        {
            throw new IllegalArgumentException("not an object: " + value);
        }
        return (Map<String, Object>) value;
    }

    static double number(final Map<String, Object> object, final String key)
    {
        final Object v = object.get(key);
        if (!(v instanceof Double))
        {
            throw new IllegalArgumentException(key + " is not a number: " + v);
        }
        return (Double) v;
    }

    private Object value()
    {
        if (pos >= text.length())
        {
            throw error("value expected");
        }
        final char c = text.charAt(pos);
        switch (c)
        {
            case '{':
                return parseObject();
            case '[':
                return parseArray();
            case '"':
                return parseString();
            case 't':
                expectWord("true");
                return Boolean.TRUE;
            case 'f':
                expectWord("false");
                return Boolean.FALSE;
            case 'n':
                expectWord("null");
                return null;
            default:
                return parseNumber();
        }
    }

    private Map<String, Object> parseObject()
    {
        final Map<String, Object> map = new LinkedHashMap<>();
        pos++;
        skipSpace();
        if (peek() == '}')
        {
            pos++;
            return map;
        }
        while (true)
        {
            skipSpace();
            final String key = parseString();
            skipSpace();
            expect(':');
            skipSpace();
            if (map.put(key, value()) != null)
            {
                throw error("duplicate key " + key);
            }
            skipSpace();
            if (peek() == ',')
            {
                pos++;
                continue;
            }
            expect('}');
            return map;
        }
    }

    private List<Object> parseArray()
    {
        final List<Object> list = new ArrayList<>();
        pos++;
        skipSpace();
        if (peek() == ']')
        {
            pos++;
            return list;
        }
        while (true)
        {
            skipSpace();
            list.add(value());
            skipSpace();
            if (peek() == ',')
            {
                pos++;
                continue;
            }
            expect(']');
            return list;
        }
    }

    private String parseString()
    {
        expect('"');
        final StringBuilder sb = new StringBuilder();
        while (true)
        {
            final char c = next();
            if (c == '"')
            {
                return sb.toString();
            }
            if (c < 0x20)
            {
                throw error("control character in string");
            }
            if (c == '\\')
            {
                final char e = next();
                switch (e)
                {
                    case 'u':
                        sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                        pos += 4;
                        break;
                    case 'n':
                        sb.append('\n');
                        break;
                    case 't':
                        sb.append('\t');
                        break;
                    case 'r':
                        sb.append('\r');
                        break;
                    case 'b':
                        sb.append('\b');
                        break;
                    case 'f':
                        sb.append('\f');
                        break;
                    default:
                        sb.append(e);
                        break;
                }
            }
            else
            {
                sb.append(c);
            }
        }
    }

    private Double parseNumber()
    {
        final int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0)
        {
            pos++;
        }
        if (start == pos)
        {
            throw error("unexpected character '" + text.charAt(pos) + "'");
        }
        final String number = text.substring(start, pos);
        if (!number.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"))
        {
            throw error("malformed number " + number);
        }
        return Double.parseDouble(number);
    }

    private void expectWord(final String word)
    {
        if (!text.startsWith(word, pos))
        {
            throw error(word + " expected");
        }
        pos += word.length();
    }

    private void expect(final char c)
    {
        if (next() != c)
        {
            throw error("'" + c + "' expected");
        }
    }

    private char next()
    {
        if (pos >= text.length())
        {
            throw error("unexpected end");
        }
        return text.charAt(pos++);
    }

    private char peek()
    {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void skipSpace()
    {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos)))
        {
            pos++;
        }
    }

    private IllegalArgumentException error(final String message)
    {
        return new IllegalArgumentException(message + " at " + pos);
    }
}
