package io.jfabric.provider.aeron;

import io.aeron.Aeron;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer restarted under the same address on the same external media driver is reachable again over
 * {@code aeron:ipc}, both ways: two child JVMs ({@link AeronNode}) attached to one driver process
 * ({@link AeronDriverProcess}) on fixed ports echo each other; one is killed with {@code kill -9}; the survivor's
 * posts to it fail; it is started again on the same host and port (so under the same name, with new IPC streams in
 * the driver's registry) and, before it has sent anything to the survivor, the survivor's echo reaches it again;
 * then its own echo reaches the survivor. The driver sent no UDP byte: both incarnations were reached over IPC.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class AeronSharedDriverRestartTest
{
    private static final String LIVENESS = AeronConfiguration.LIVENESS_TIMEOUT_PROP + "=2000";

    @Test
    void shouldReachAPeerRestartedUnderTheSameNameOnTheSameDriverAgainBothWays() throws Exception
    {
        try (NodeProcess driverProcess = NodeProcess.start("restart-driver",
            NodeProcess.javaCommand(AeronDriverProcess.class, List.of(LIVENESS))))
        {
            final String dir = driverProcess.expect("READY ", 60);
            final int[] ports = {freePort(), freePort()};
            final NodeProcess[] nodes = new NodeProcess[2];
            final String[][] names = new String[2][];
            try
            {
                for (int i = 0; i < 2; i++)
                {
                    nodes[i] = start(i, ports[i], dir);
                }
                for (int i = 0; i < 2; i++)
                {
                    names[i] = ready(nodes[i], ports[i]);
                }
                for (int i = 0; i < 2; i++)
                {
                    insertAll(nodes[i], names);
                }
                nodes[0].call("ECHO 1", "ECHO OK ", 60);
                nodes[1].call("ECHO 0", "ECHO OK ", 60);

                nodes[1].kill();
                final long killedNs = System.nanoTime();
                final String failed = nodes[0].call("ECHO 1", "", 60);
                assertTrue(failed.startsWith("FAIL ECHO 1"), "an echo to the killed peer: " + failed);
                System.out.println("aeron shared driver restart: an echo to the killed peer failed " +
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs) + " ms after the kill");

                nodes[1] = start(1, ports[1], dir);
                final String[] again = ready(nodes[1], ports[1]);
                assertEquals(names[1][0], again[0], "the restarted peer's name");
                names[1] = again;
                insertAll(nodes[1], names);
                final long restartNs = System.nanoTime();
                // The survivor first: the restarted peer has not said hello to it yet.
                nodes[0].echoUntilOk(1, 40);
                System.out.println("aeron shared driver restart: the survivor reached the restarted peer " +
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartNs) + " ms after its insert");
                nodes[1].call("ECHO 0", "ECHO OK ", 60);
                nodes[0].call("ECHO 1", "ECHO OK ", 60);
                assertEquals("5000", nodes[0].call("STREAM 1 5000", "STREAMED ", 60));
                AeronNamespaceTest.awaitReceived(nodes[1], 0, 5000);
                assertEquals("5000 0", nodes[1].call("COUNT 0", "COUNT ", 30));
                assertEquals("5000", nodes[1].call("STREAM 0 5000", "STREAMED ", 60));
                AeronNamespaceTest.awaitReceived(nodes[0], 1, 5000);
                final DriverTraffic traffic;
                try (Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(dir)))
                {
                    traffic = DriverTraffic.of(aeron.countersReader());
                }
                assertEquals(0, traffic.udpBytesSent(), "the driver sent UDP: " + traffic);
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
        }
    }

    private static NodeProcess start(final int i, final int port, final String dir) throws Exception
    {
        return NodeProcess.start("restart-node" + i, NodeProcess.javaCommand(AeronNode.class,
            List.of("node.host=127.0.0.1", "node.port=" + port, "node.index=" + i, LIVENESS,
                AeronConfiguration.DIR_PROP + "=" + dir)));
    }

    private static String[] ready(final NodeProcess node, final int port) throws Exception
    {
        final String[] names = node.expect("READY ", 60).split(" ");
        assertTrue(names[0].startsWith("fi_aeron://127.0.0.1:" + port), names[0]);
        return names;
    }

    private static void insertAll(final NodeProcess node, final String[][] names) throws Exception
    {
        for (int k = 0; k < names.length; k++)
        {
            assertEquals((2 * k) + " " + (2 * k + 1),
                node.call("PEER " + names[k][0] + " " + names[k][1], "INSERTED ", 30));
        }
    }


    private static int freePort() throws Exception
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}
