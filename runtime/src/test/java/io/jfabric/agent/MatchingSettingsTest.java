package io.jfabric.agent;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.matching.MatchingContext;
import io.jfabric.matching.TagStorage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jfabric.matching.tagStorage} and {@code jfabric.matching.indexDepth}: defaults, values read at endpoint
 * open, bad values refused naming the property.
 */
class MatchingSettingsTest
{
    @AfterEach
    void clear()
    {
        System.clearProperty(MatchingSettings.TAG_STORAGE_PROP);
        System.clearProperty(MatchingSettings.INDEX_DEPTH_PROP);
    }

    @Test
    void shouldDefaultToAutoStorageAtDepthSixteen()
    {
        final MatchingContext context = MatchingSettings.context(4096, 100).conclude();
        assertEquals(TagStorage.AUTO, context.tagStorage());
        assertEquals(16, context.indexDepth());
        assertEquals(1024, context.tagBuckets());
        assertEquals(4096, context.rxSize());
        assertEquals(100, context.unexpectedEntries());
        assertEquals(16, MatchingSettings.context(4, 100).tagBuckets());
        assertEquals(TagStorage.AUTO, new EndpointState(0, 64, 64, 8192, 1 << 20).engine.tagStorage());
    }

    @Test
    void shouldReadTheStorageAndTheDepthWhenAnEndpointOpens()
    {
        System.setProperty(MatchingSettings.TAG_STORAGE_PROP, " List ");
        System.setProperty(MatchingSettings.INDEX_DEPTH_PROP, "64");
        assertEquals(TagStorage.LIST, new EndpointState(0, 64, 64, 8192, 1 << 20).engine.tagStorage());
        assertEquals(64, MatchingSettings.context(64, 64).indexDepth());
        System.setProperty(MatchingSettings.TAG_STORAGE_PROP, "index");
        assertEquals(TagStorage.INDEX, new EndpointState(0, 64, 64, 8192, 1 << 20).engine.tagStorage());
    }

    @Test
    void shouldRefuseValuesItCannotReadNamingTheProperty()
    {
        System.setProperty(MatchingSettings.TAG_STORAGE_PROP, "hash");
        final FabricException storage = assertThrows(FabricException.class, MatchingSettings::tagStorage);
        assertEquals(Errno.EINVAL, storage.errno());
        assertTrue(storage.getMessage().contains(MatchingSettings.TAG_STORAGE_PROP), storage.getMessage());
        System.clearProperty(MatchingSettings.TAG_STORAGE_PROP);

        for (final String bad : new String[] {"0", "x", "2000000"})
        {
            System.setProperty(MatchingSettings.INDEX_DEPTH_PROP, bad);
            final FabricException depth = assertThrows(FabricException.class, MatchingSettings::indexDepth);
            assertEquals(Errno.EINVAL, depth.errno());
            assertTrue(depth.getMessage().contains(MatchingSettings.INDEX_DEPTH_PROP), depth.getMessage());
        }
    }
}
