package io.jfabric.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.Strictness;

import java.util.Map;

/**
 * JSON for the tests, parsed strictly by Gson: objects become {@link Map}s, arrays {@link java.util.List}s, numbers
 * {@link Double}s, and the whole input must be exactly one value.
 */
final class Json
{
    private static final Gson GSON = new GsonBuilder().setStrictness(Strictness.STRICT).create();

    private Json()
    {
    }

    static Object parse(final String text)
    {
        return GSON.fromJson(text, Object.class);
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
}
