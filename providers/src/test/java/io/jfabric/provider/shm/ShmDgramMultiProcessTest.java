package io.jfabric.provider.shm;

import io.jfabric.provider.DgramMultiProcessTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Path;
import java.util.List;

/**
 * {@link DgramMultiProcessTests} over {@code shm}: the children share a private ring directory with this JVM.
 */
class ShmDgramMultiProcessTest extends DgramMultiProcessTests
{
    private static Path dir;

    @BeforeAll
    static void directory() throws Exception
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-dgram-");
    }

    @AfterAll
    static void deleteDirectory() throws Exception
    {
        ShmTests.deleteTree(dir);
    }

    @Override
    protected String provider()
    {
        return ShmProvider.NAME;
    }

    @Override
    protected List<String> childOptions()
    {
        return List.of("-D" + ShmConfiguration.DIR_PROP + "=" + dir);
    }
}
