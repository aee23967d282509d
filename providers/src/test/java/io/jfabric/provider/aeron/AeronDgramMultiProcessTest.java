package io.jfabric.provider.aeron;

import io.jfabric.provider.DgramMultiProcessTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.List;

/**
 * {@link DgramMultiProcessTests} over {@code aeron}: each process embeds its own media driver and the
 * datagrams run over UDP on loopback, with a short liveness timeout on both sides.
 */
class AeronDgramMultiProcessTest extends DgramMultiProcessTests
{
    @BeforeAll
    static void liveness()
    {
        System.setProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP, Long.toString(AeronTests.LIVENESS_MS));
    }

    @AfterAll
    static void clearLiveness()
    {
        System.clearProperty(AeronConfiguration.LIVENESS_TIMEOUT_PROP);
    }

    @Override
    protected String provider()
    {
        return AeronProvider.NAME;
    }

    @Override
    protected List<String> childOptions()
    {
        return List.of("-D" + AeronConfiguration.LIVENESS_TIMEOUT_PROP + "=" + AeronTests.LIVENESS_MS);
    }
}
