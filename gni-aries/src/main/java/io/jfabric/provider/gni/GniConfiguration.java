package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.aries.AriesNode;
import io.jfabric.aries.AriesWire;
import io.jfabric.aries.InJvmWire;
import io.jfabric.aries.JobRegistry;
import io.jfabric.aries.NodeDirectory;
import io.jfabric.aries.ShmAriesWire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Property names, defaults and the process-wide pieces of the emulated system the {@code gni} provider runs on: the
 * in-JVM hub, the node directory and the job registry. Each gni domain owns one emulated Aries node (its own device
 * address, one CDM, one NIC), so that a domain closed or a process killed is a node gone, as on a Cray system.
 * <p>
 * Threading: thread-safe (control path only).
 */
public final class GniConfiguration
{
    /**
     * System property: the wire between emulated nodes, {@code injvm} (default: nodes of this JVM only) or
     * {@code shm} (nodes of every process of this host, over the shm provider's rings).
     */
    public static final String WIRE_PROP = "jfabric.gni.wire";
    /**
     * System property: the node directory shared by the processes of one emulated system (device address and inst
     * id to wire address). Default: a fresh temporary folder with {@code injvm}, {@code ${java.io.tmpdir}/jfabric-gni}
     * with {@code shm}.
     */
    public static final String DIRECTORY_PROP = "jfabric.gni.directory";
    /**
     * System property: milliseconds a lazy VC connect may take before the operations queued on it fail with
     * {@code FI_ETIMEDOUT} (GNI.md §5.6 decision 3). Default: the domain's {@code GNI_DGRAM_PROGRESS_TIMEOUT}
     * (100 ms) times 30 when its first endpoint opens ({@link GniNicGeometry}), {@link #CONNECT_TIMEOUT_MS} for the
     * CM channel of MSG endpoints; when set, it is both.
     */
    public static final String CONNECT_TIMEOUT_PROP = "jfabric.gni.connectTimeoutMs";
    /** Default connect timeout: 30 datagram progress periods of 100 ms. */
    public static final long CONNECT_TIMEOUT_MS = 3000;
    /** The job's default protection tag (the one the launcher would hand out). */
    public static final int DEFAULT_PTAG = 10;
    /** The job's default cookie: the default authorization key. */
    public static final int DEFAULT_COOKIE = 0x5a5a_0001;

    private static final AtomicInteger NEXT_DEVICE = new AtomicInteger(1);
    private static final CopyOnWriteArrayList<AriesNode> NODES = new CopyOnWriteArrayList<>();
    // The engine thread's view of NODES: an array, so that its loop allocates no iterator.
    private static volatile AriesNode[] engineNodes = new AriesNode[0];
    private static Thread engines;
    private static InJvmWire.Hub hub;
    private static NodeDirectory directory;
    private static JobRegistry jobs;

    private GniConfiguration()
    {
    }

    /**
     * @return whether nodes talk over the shm wire.
     */
    static boolean shmWire()
    {
        final String wire = System.getProperty(WIRE_PROP, "injvm");
        if ("shm".equalsIgnoreCase(wire))
        {
            return true;
        }
        if ("injvm".equalsIgnoreCase(wire))
        {
            return false;
        }
        throw new FabricException(Errno.EINVAL, WIRE_PROP + "='" + wire + "': injvm or shm");
    }

    /**
     * @return the connect timeout in nanoseconds.
     */
    static long connectTimeoutNs()
    {
        return connectTimeoutNs(CONNECT_TIMEOUT_MS);
    }

    /**
     * @param defaultMs the timeout when {@link #CONNECT_TIMEOUT_PROP} is not set (a VC's: the domain's
     *                  {@code GNI_DGRAM_PROGRESS_TIMEOUT} times {@link GniNicGeometry#CONNECT_PERIODS}).
     * @return the connect timeout in nanoseconds: the property's when set, else {@code defaultMs}.
     */
    static long connectTimeoutNs(final long defaultMs)
    {
        final String text = System.getProperty(CONNECT_TIMEOUT_PROP, Long.toString(defaultMs));
        try
        {
            final long ms = Long.parseLong(text.trim());
            if (ms < 1)
            {
                throw new NumberFormatException("below 1");
            }
            return ms * 1_000_000L;
        }
        catch (final NumberFormatException ex)
        {
            throw new FabricException(Errno.EINVAL, CONNECT_TIMEOUT_PROP + "='" + text + "': " + ex.getMessage());
        }
    }

    /**
     * A new device address, unique in this system: a counter in this JVM, made unique across processes with the pid
     * on the shm wire.
     *
     * @return the address.
     */
    static int nextDevice()
    {
        final int n = NEXT_DEVICE.getAndIncrement();
        return shmWire() ? (int) ((ProcessHandle.current().pid() & 0x3F_FFFF) << 8) | (n & 0xFF) : n | 0x100;
    }

    /**
     * A new wire for a node.
     *
     * @param device the node's device address.
     * @return the wire.
     */
    static synchronized AriesWire wire(final int device)
    {
        if (shmWire())
        {
            return ShmAriesWire.open("gni-" + Integer.toHexString(device));
        }
        if (null == hub)
        {
            hub = new InJvmWire.Hub();
        }
        return hub.open();
    }

    /**
     * @return the directory of this emulated system.
     */
    static synchronized NodeDirectory directory()
    {
        final String configured = System.getProperty(DIRECTORY_PROP);
        if (null != directory && null != configured && !directory.root().equals(Paths.get(configured)))
        {
            // The property changed since the directory was made (a test switching systems): follow it.
            directory = null;
        }
        if (null == directory)
        {
            try
            {
                final Path root;
                if (null != configured)
                {
                    root = Paths.get(configured);
                }
                else if (shmWire())
                {
                    root = Paths.get(System.getProperty("java.io.tmpdir"), "jfabric-gni");
                }
                else
                {
                    root = Files.createTempDirectory("jfabric-gni");
                    root.toFile().deleteOnExit();
                }
                Files.createDirectories(root);
                directory = new NodeDirectory(root);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        return directory;
    }

    /**
     * Let the process's NIC engine thread step a node, so that the emulated hardware answers remote GETs, deposits
     * mailbox messages and matches datagrams while the domain's application makes no calls (the NIC is autonomous,
     * as on Aries). The domain's own duty cycle also steps its node (the engine only tries the node's lock).
     *
     * @param node the node.
     */
    static synchronized void startEngine(final AriesNode node)
    {
        NODES.add(node);
        engineNodes = NODES.toArray(new AriesNode[0]);
        if (null == engines)
        {
            engines = new Thread(GniConfiguration::runEngines, "gni-nic-engines");
            engines.setDaemon(true);
            engines.start();
        }
    }

    /**
     * Stop stepping a node (before it closes).
     *
     * @param node the node.
     */
    static synchronized void stopEngine(final AriesNode node)
    {
        NODES.remove(node);
        engineNodes = NODES.toArray(new AriesNode[0]);
    }

    private static void runEngines()
    {
        final org.agrona.concurrent.IdleStrategy idle =
            new org.agrona.concurrent.BackoffIdleStrategy(10, 20, 1_000, 200_000);
        while (true)
        {
            int work = 0;
            final AriesNode[] nodes = engineNodes;
            for (final AriesNode node : nodes)
            {
                try
                {
                    work += node.agent().doWork();
                }
                catch (final Exception ex)
                {
                    // A node closed under the loop: it leaves the list on close.
                    work += 0;
                }
            }
            idle.idle(work);
        }
    }

    /**
     * @return the job registry: the default job's cookie and ptag.
     */
    static synchronized JobRegistry jobs()
    {
        if (null == jobs)
        {
            jobs = new JobRegistry().register(DEFAULT_COOKIE, DEFAULT_PTAG);
        }
        return jobs;
    }
}
