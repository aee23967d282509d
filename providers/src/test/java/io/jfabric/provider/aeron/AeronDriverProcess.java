package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A child JVM running only a media driver, as the provider embeds it, for processes that share it through
 * {@link AeronConfiguration#DIR_PROP}: prints {@code READY <dir>}, runs until its stdin closes or says {@code EXIT},
 * then closes the driver (which deletes its directory).
 */
public final class AeronDriverProcess
{
    private AeronDriverProcess()
    {
    }

    /**
     * @param args none ({@code jfabric.aeron.livenessTimeoutMs} is read).
     * @throws Exception on a failure.
     */
    public static void main(final String[] args) throws Exception
    {
        final String dir = AeronFabricBackend.embeddedDirectory();
        try (MediaDriver driver = MediaDriver.launch(
            AeronFabricBackend.driverContext(dir, AeronConfiguration.livenessTimeoutMs())))
        {
            System.out.println("READY " + driver.aeronDirectoryName());
            System.out.flush();
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            String line;
            while (null != (line = in.readLine()) && !"EXIT".equals(line.trim()))
            {
                System.out.println("UNKNOWN " + line);
            }
        }
    }
}
