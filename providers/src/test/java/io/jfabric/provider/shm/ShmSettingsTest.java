package io.jfabric.provider.shm;

import io.jfabric.Configuration;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shm provider's settings as {@code io.jfabric.Configuration} (and so {@code jfabric info --env}) lists them
 * are the ones {@link ShmConfiguration} reads, with its defaults.
 */
class ShmSettingsTest
{
    @Test
    void shouldListTheShmSettingsWithTheirDefaults()
    {
        final Map<String, String> defaults = Configuration.settings().stream()
            .collect(Collectors.toMap(Configuration.Setting::property, Configuration.Setting::defaultValue));
        assertEquals(Integer.toString(ShmConfiguration.RING_CAPACITY),
            defaults.get(ShmConfiguration.RING_CAPACITY_PROP));
        assertEquals(Long.toString(ShmConfiguration.POOL_SIZE), defaults.get(ShmConfiguration.POOL_SIZE_PROP));
        assertTrue(defaults.get(ShmConfiguration.DIR_PROP).startsWith("/dev/shm/" + "jfabric-<uid>"),
            defaults.get(ShmConfiguration.DIR_PROP));
        assertTrue(defaults.keySet().stream().noneMatch(p -> p.startsWith("jfabric.shm.checked")),
            "no CAS on mapped memory is left to check: jfabric.shm.checkedUpdates is gone");
    }
}
