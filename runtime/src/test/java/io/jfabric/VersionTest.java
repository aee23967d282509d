package io.jfabric;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CONFORMANCE getinfo: "Version is (major, minor)": FI_VERSION packing, ordering by major then minor (1.10 after
 * 1.9), parsing and range checks.
 */
class VersionTest
{
    @Test
    void shouldPackAsFiVersion()
    {
        assertEquals((1 << 16) | 22, Version.of(1, 22).packed());
        assertEquals(Version.of(2, 3), Version.fromPacked((2 << 16) | 3));
    }

    @Test
    void shouldOrderByMajorThenMinorNumerically()
    {
        assertTrue(Version.of(1, 10).compareTo(Version.of(1, 9)) > 0);
        assertTrue(Version.of(2, 0).compareTo(Version.of(1, 22)) > 0);
        assertEquals(0, Version.of(1, 5).compareTo(Version.parse("1.5")));
        assertTrue(Version.of(1, 22).atLeast(Version.of(1, 5)));
    }

    @Test
    void shouldRefuseMalformedOrOutOfRangeVersionsNamingTheInput()
    {
        final FabricException ex = assertThrows(FabricException.class, () -> Version.parse("1"));

        assertEquals(Errno.EINVAL, ex.errno());
        assertTrue(ex.getMessage().contains("'1'"), ex.getMessage());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> Version.of(65536, 0)).errno());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> Version.of(1, -1)).errno());
    }
}
