package io.jfabric;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jfabric.cm.connectTimeoutMs}: the default, a value read, bad values refused naming the property, and the
 * listing in {@link Configuration}.
 */
class ConnectionSettingsTest
{
    @AfterEach
    void clear()
    {
        System.clearProperty(ConnectionManager.CONNECT_TIMEOUT_PROPERTY);
    }

    @Test
    void shouldReadTheConnectTimeoutAndRefuseBadValues()
    {
        System.clearProperty(ConnectionManager.CONNECT_TIMEOUT_PROPERTY);
        assertEquals(ConnectionManager.DEFAULT_CONNECT_TIMEOUT_MS, ConnectionManager.connectTimeoutMs());
        System.setProperty(ConnectionManager.CONNECT_TIMEOUT_PROPERTY, "250");
        assertEquals(250, ConnectionManager.connectTimeoutMs());
        for (final String bad : new String[]{"0", "-5", "soon"})
        {
            System.setProperty(ConnectionManager.CONNECT_TIMEOUT_PROPERTY, bad);
            final FabricException ex = assertThrows(FabricException.class, ConnectionManager::connectTimeoutMs);
            assertEquals(Errno.EINVAL, ex.errno());
            assertTrue(ex.getMessage().contains(ConnectionManager.CONNECT_TIMEOUT_PROPERTY), ex.getMessage());
        }
    }

    @Test
    void shouldListThePropertyWithItsDefault()
    {
        final Configuration.Setting setting = Configuration.settings().stream()
            .filter(s -> ConnectionManager.CONNECT_TIMEOUT_PROPERTY.equals(s.property())).findFirst().orElseThrow();
        assertEquals(Long.toString(ConnectionManager.DEFAULT_CONNECT_TIMEOUT_MS), setting.defaultValue());
        assertEquals("JFABRIC_CM_CONNECT_TIMEOUT_MS", setting.environmentVariable());
    }
}
