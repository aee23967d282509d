package io.jfabric.provider.aeron;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several processes of a host sharing one external media driver ({@link AeronConfiguration#DIR_PROP}): a driver
 * process and two child JVMs ({@link AeronNode}) attached to it run every op family against each other, data
 * verified at every threshold. The domains still reach each other by UDP through that one driver (loopback);
 * {@code aeron:ipc} among them is not used yet (providers/AERON.md). The driver's directory is gone after it exits.
 */
@Timeout(value = 100, unit = TimeUnit.SECONDS)
class AeronSharedDriverTest
{
    @Test
    void shouldRunEveryOpFamilyBetweenTwoProcessesAttachedToOneExternalDriverProcess() throws Exception
    {
        final String liveness = AeronConfiguration.LIVENESS_TIMEOUT_PROP + "=2000";
        final String dir;
        try (NodeProcess driver = NodeProcess.start("shared-driver",
            NodeProcess.javaCommand(AeronDriverProcess.class, List.of(liveness))))
        {
            dir = driver.expect("READY ", 60);
            assertTrue(Files.isDirectory(Paths.get(dir)), dir);
            final NodeProcess[] nodes = new NodeProcess[2];
            try
            {
                final String[][] names = new String[2][];
                for (int i = 0; i < 2; i++)
                {
                    nodes[i] = NodeProcess.start("shared-node" + i, NodeProcess.javaCommand(AeronNode.class,
                        List.of("node.host=127.0.0.1", "node.port=0", "node.index=" + i, liveness,
                            AeronConfiguration.DIR_PROP + "=" + dir)));
                }
                for (int i = 0; i < 2; i++)
                {
                    names[i] = nodes[i].expect("READY ", 60).split(" ");
                }
                for (int i = 0; i < 2; i++)
                {
                    for (int k = 0; k < 2; k++)
                    {
                        assertEquals((2 * k) + " " + (2 * k + 1),
                            nodes[i].call("PEER " + names[k][0] + " " + names[k][1], "INSERTED ", 30));
                    }
                }
                nodes[0].send("SUITE 1");
                nodes[1].send("SUITE 0");
                for (int i = 0; i < 2; i++)
                {
                    assertEquals(Integer.toString(5 * AeronNode.SIZES.length + 4), nodes[i].expect("SUITE OK ", 90));
                }
            }
            finally
            {
                for (final NodeProcess node : nodes)
                {
                    if (null != node)
                    {
                        node.close();
                    }
                }
            }
            assertTrue(Files.isDirectory(Paths.get(dir)), "the clients must not delete the external driver's dir");
        }
        assertFalse(Files.exists(Paths.get(dir)), "the driver process left its directory behind");
    }
}
