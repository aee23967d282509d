package io.jfabric.provider.gni;

import io.jfabric.Domain;
import io.jfabric.stat.DomainCounters;
import io.jfabric.stat.StatReader;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A gni domain's transport counters, by name, as the process's counters file shows them (what `jfabric stat`
 * reads): the tests that prove which path served a transfer compare them before and after.
 */
final class GniTransportCounters
{
    private GniTransportCounters()
    {
    }

    /**
     * @param domain a gni domain.
     * @param name   a counter the caller needs (asserted present, so that a renamed counter fails the test).
     * @return every transport counter of the domain, by name.
     */
    static Map<String, Long> of(final Domain domain, final String name)
    {
        final DomainCounters counters = domain.counters();
        final Path file = counters.file().path();
        assertNotNull(file, "the counters directory must be usable for this test");
        final String suffix = " id=" + counters.domainId();
        final Map<String, Long> values = new HashMap<>();
        try (StatReader reader = StatReader.open(file))
        {
            reader.forEachCounter((id, type, value, label) ->
            {
                if (DomainCounters.TYPE_TRANSPORT == type && label.endsWith(suffix))
                {
                    values.put(label.substring(0, label.indexOf(':')), value);
                }
            });
        }
        assertNotNull(values.get(name), "gni's counters: " + values);
        return values;
    }
}
