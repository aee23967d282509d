package io.jfabric.aries;

import io.jfabric.stat.StatReader;

import java.nio.file.Paths;

/**
 * A child JVM for {@link AriesCountersTest}: opens another process's counters file with {@link StatReader} and
 * prints every Aries NIC counter as {@code <type id> <value> <label>}, one a line, then {@code END}.
 */
public final class AriesStatChild
{
    private AriesStatChild()
    {
    }

    /**
     * @param args the counters file's path.
     */
    public static void main(final String[] args)
    {
        try (StatReader reader = StatReader.open(Paths.get(args[0])))
        {
            reader.forEachCounter((id, type, value, label) ->
            {
                if (type >= AriesCounters.TYPE_FIRST && type <= AriesCounters.TYPE_LAST)
                {
                    System.out.println(type + " " + value + " " + label);
                }
            });
        }
        System.out.println("END");
    }
}
