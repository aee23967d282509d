package io.jfabric.provider.shm;

import io.jfabric.Configuration;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
        assertEquals(Integer.toString(ShmConfiguration.CHECKED_UPDATES),
            defaults.get(ShmConfiguration.CHECKED_UPDATES_PROP));
    }

    @Test
    void shouldReadTheCheckedUpdatesAndRefuseBadValuesNamingTheProperty()
    {
        final String prop = ShmConfiguration.CHECKED_UPDATES_PROP;
        try
        {
            System.clearProperty(prop);
            assertEquals(ShmConfiguration.CHECKED_UPDATES, ShmConfiguration.checkedUpdates());
            System.setProperty(prop, " 0 ");
            assertEquals(0, ShmConfiguration.checkedUpdates());
            System.setProperty(prop, "123456");
            assertEquals(123456, ShmConfiguration.checkedUpdates());
            for (final String bad : new String[] { "-1", "many", "99999999999" })
            {
                System.setProperty(prop, bad);
                final FabricException ex = assertThrows(FabricException.class, ShmConfiguration::checkedUpdates);
                assertEquals(Errno.EINVAL, ex.errno());
                assertTrue(ex.getMessage().contains(prop), ex.getMessage());
            }
        }
        finally
        {
            System.clearProperty(prop);
        }
    }
}
