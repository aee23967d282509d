package io.jfabric.provider.aeron;

import io.aeron.Aeron;
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
 * verified at every threshold, over {@code aeron:ipc} (they find each other in the driver's registry,
 * {@link AeronIpcRegistry}): the driver's counters show that it sent no UDP byte and that the domains' IPC
 * subscriptions consumed the data. Then one child is killed with {@code kill -9} in the middle of a stream to it,
 * with a rendezvous send waiting for its CTS: the send and a read posted after the kill fail with a peer error
 * within the bounded wait (the dead client's heartbeat stops; the driver keeps its IPC streams until its own client
 * timeout), a new post fails, and the survivor still reaches itself. The driver's directory is gone after it exits.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
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
                final DriverTraffic traffic = traffic(dir);
                assertEquals(0, traffic.udpBytesSent(), "the driver sent UDP: " + traffic);
                assertTrue(traffic.ipcBytesPolled() > 4L * AeronNode.MAX, "IPC carried too little: " + traffic);
                System.out.println("aeron shared driver: the all-op suite went over aeron:ipc: " + traffic);
                killMidStream(nodes[0], nodes[1]);
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

    private static DriverTraffic traffic(final String dir)
    {
        try (Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(dir)))
        {
            return DriverTraffic.of(aeron.countersReader());
        }
    }

    private static void killMidStream(final NodeProcess source, final NodeProcess victim) throws Exception
    {
        assertEquals("22", source.call("HOLD 1", "HELD ", 30));
        source.send("STREAM 1 400000");
        AeronNamespaceTest.awaitReceived(victim, 0, 1000);
        victim.kill();
        final long killedNs = System.nanoTime();
        final String streamEnd = source.expect("", 60);
        assertTrue(streamEnd.startsWith("STREAMED ") || streamEnd.startsWith("FAIL STREAM"), streamEnd);
        assertEquals("21", source.call("READ 1", "POSTED ", 30));
        final String errors = source.call("ERRORS 2", "ERRORS ", 60);
        final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);
        AeronNamespaceTest.assertFailedWithPeerErrors(errors, 21, 22);
        System.out.println("aeron shared driver: a peer on the driver killed with kill -9 mid-stream and " +
            "mid-rendezvous: the held send and a read failed (" + errors + ") within " + detectedMs +
            " ms of the kill (liveness 2000 ms); the stream ended with '" + streamEnd + "'");
        assertTrue(source.call("ECHO 1", "", 60).startsWith("FAIL ECHO 1"), "a new post to the dead peer");
        source.call("ECHO 0", "ECHO OK ", 60);
    }
}
