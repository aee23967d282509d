package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import org.agrona.CloseHelper;

/**
 * Helpers of the aeron tests: one media driver shared by the fabrics a test class opens (starting a driver per
 * fabric would cost a driver thread and its start-up per test on a 2-core machine).
 */
final class AeronTests
{
    /** Liveness timeout of the shared test driver and of the fabrics using it, milliseconds. */
    static final long LIVENESS_MS = 2000;

    private AeronTests()
    {
    }

    /**
     * Start a driver as the provider embeds it and point {@link AeronConfiguration#DIR_PROP} at it; the domains
     * reach each other by UDP loopback through it ({@link AeronConfiguration#IPC_PROP} false).
     *
     * @return the driver; close it with {@link #stopSharedDriver}.
     */
    static MediaDriver startSharedDriver()
    {
        return startSharedDriver(false);
    }

    /**
     * Start a driver as the provider embeds it and point {@link AeronConfiguration#DIR_PROP} at it.
     *
     * @param ipc true: the domains reach each other over {@code aeron:ipc}; false: by UDP loopback.
     * @return the driver; close it with {@link #stopSharedDriver}.
     */
    static MediaDriver startSharedDriver(final boolean ipc)
    {
        System.setProperty(AeronConfiguration.IPC_PROP, Boolean.toString(ipc));
        System.setProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP, Long.toString(LIVENESS_MS));
        final String dir = AeronFabricBackend.embeddedDirectory();
        final MediaDriver driver = MediaDriver.launch(AeronFabricBackend.driverContext(dir, LIVENESS_MS));
        System.setProperty(AeronConfiguration.DIR_PROP, dir);
        return driver;
    }

    /**
     * Stop a driver from {@link #startSharedDriver} (its directory is deleted) and clear the properties.
     *
     * @param driver the driver, or null.
     */
    static void stopSharedDriver(final MediaDriver driver)
    {
        System.clearProperty(AeronConfiguration.DIR_PROP);
        System.clearProperty(AeronConfiguration.IPC_PROP);
        System.clearProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP);
        CloseHelper.quietClose(driver);
    }
}
