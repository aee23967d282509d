package io.jfabric.provider.aeron;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.FabricBackend;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.io.File;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The aeron provider's state for one fabric: the Aeron client every domain of the fabric uses, connected to a media
 * driver that this fabric embeds (started here, its directory deleted on close) or to an external one named by
 * {@link AeronConfiguration#DIR_PROP} or {@code aeron.dir}. It also keeps the addresses (host, port, stream) its
 * domains listen on, so that two domains of one fabric never share a stream.
 * <p>
 * The embedded driver runs in {@link ThreadingMode#SHARED} mode (one thread) with a backoff idle strategy, unless
 * {@code aeron.threading.mode} or {@code aeron.shared.idle.strategy} say otherwise; its publication-connection and
 * image-liveness timeouts are half the provider's liveness timeout unless Aeron's own properties set them, so that
 * a dead peer is detected within {@link AeronConfiguration#LIVENESS_TIMEOUT_PROP}.
 * <p>
 * Threading: control path, thread-safe.
 */
final class AeronFabricBackend implements FabricBackend
{
    private static final AtomicLong DRIVERS = new AtomicLong();

    private final MediaDriver driver;
    private final Aeron aeron;
    private final String directory;
    private final long livenessTimeoutMs;
    private final Set<String> listening = new HashSet<>();
    private boolean closed;

    private AeronFabricBackend(
        final MediaDriver driver, final Aeron aeron, final String directory, final long livenessTimeoutMs)
    {
        this.driver = driver;
        this.aeron = aeron;
        this.directory = directory;
        this.livenessTimeoutMs = livenessTimeoutMs;
    }

    /**
     * Start an embedded driver (or find the external one) and connect a client to it. Before an embedded driver
     * starts, the stale directories of drivers whose processes died are deleted ({@link AeronDriverDirectories}).
     *
     * @return the backend.
     * @throws FabricException EIO when the driver cannot be started or reached; EINVAL for a bad setting.
     */
    static AeronFabricBackend open()
    {
        final long livenessTimeoutMs = AeronConfiguration.livenessTimeoutMs();
        final String external = AeronConfiguration.externalDirectory();
        MediaDriver driver = null;
        final String dir;
        if (null == external)
        {
            AeronDriverDirectories.reclaimStale();
            dir = embeddedDirectory();
            try
            {
                driver = MediaDriver.launch(driverContext(dir, livenessTimeoutMs));
            }
            catch (final RuntimeException ex)
            {
                IoUtil.delete(new File(dir), true);
                throw new FabricException(Errno.EIO, "aeron: cannot start the embedded media driver in " + dir +
                    ": " + ex);
            }
        }
        else
        {
            dir = external;
        }
        try
        {
            final Aeron aeron = Aeron.connect(new Aeron.Context()
                .aeronDirectoryName(dir)
                .errorHandler(AeronFabricBackend::onClientError)
                .driverTimeoutMs(Math.max(10_000, livenessTimeoutMs)));
            return new AeronFabricBackend(driver, aeron, dir, livenessTimeoutMs);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(driver);
            if (null != driver)
            {
                IoUtil.delete(new File(dir), true);
            }
            throw new FabricException(Errno.EIO, "aeron: cannot connect to the media driver in " + dir + ": " + ex);
        }
    }

    /**
     * Errors of the Aeron client's conductor thread: reported on standard error, never a process exit (Aeron's
     * default handler exits the JVM when the driver stops answering).
     */
    private static void onClientError(final Throwable error)
    {
        System.err.println("jfabric aeron: client error: " + error);
    }

    /**
     * The context of a driver as this provider embeds it (also used by tests that share one driver among several
     * fabrics through {@link AeronConfiguration#DIR_PROP}).
     *
     * @param dir               the driver's directory.
     * @param livenessTimeoutMs the provider's liveness timeout.
     * @return the context, not yet concluded.
     */
    static MediaDriver.Context driverContext(final String dir, final long livenessTimeoutMs)
    {
        final MediaDriver.Context context = new MediaDriver.Context()
            .aeronDirectoryName(dir)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .termBufferSparseFile(true);
        if (null == System.getProperty(io.aeron.driver.Configuration.THREADING_MODE_PROP_NAME))
        {
            context.threadingMode(ThreadingMode.SHARED);
        }
        if (null == System.getProperty(io.aeron.driver.Configuration.SHARED_IDLE_STRATEGY_PROP_NAME))
        {
            context.sharedIdleStrategy(new BackoffIdleStrategy());
        }
        final long halfNs = TimeUnit.MILLISECONDS.toNanos(livenessTimeoutMs) / 2;
        if (null == System.getProperty(io.aeron.driver.Configuration.PUBLICATION_CONNECTION_TIMEOUT_PROP_NAME))
        {
            context.publicationConnectionTimeoutNs(halfNs);
        }
        if (null == System.getProperty(io.aeron.driver.Configuration.IMAGE_LIVENESS_TIMEOUT_PROP_NAME))
        {
            context.imageLivenessTimeoutNs(halfNs);
        }
        if (null == System.getProperty(io.aeron.driver.Configuration.TIMER_INTERVAL_PROP_NAME))
        {
            context.timerIntervalNs(Math.min(context.timerIntervalNs(), halfNs / 4));
        }
        return context;
    }

    /**
     * A fresh directory name for an embedded driver: under {@code /dev/shm} when it is a writable directory (as
     * Aeron's default), else under {@code java.io.tmpdir}; unique per process and driver.
     */
    static String embeddedDirectory()
    {
        return AeronDriverDirectories.base().resolve(AeronDriverDirectories.PREFIX + ProcessHandle.current().pid() +
            "-" + DRIVERS.incrementAndGet() +
            "-" + Long.toHexString(System.nanoTime())).toString();
    }

    /**
     * @return the client.
     */
    Aeron aeron()
    {
        return aeron;
    }

    /**
     * @return the driver's directory.
     */
    String directory()
    {
        return directory;
    }

    /**
     * @return true when this fabric runs its own media driver.
     */
    boolean embedded()
    {
        return null != driver;
    }

    /**
     * @return the liveness timeout the fabric was opened with, milliseconds.
     */
    long livenessTimeoutMs()
    {
        return livenessTimeoutMs;
    }

    /**
     * Take a domain address (host, port, stream) for a domain of this fabric.
     *
     * @param domainKey {@link AeronAddress#domainKey()}.
     * @return false when another domain of this fabric listens there.
     */
    synchronized boolean claim(final String domainKey)
    {
        if (closed)
        {
            throw new FabricException(Errno.EIO, "aeron: the fabric is closed");
        }
        return listening.add(domainKey);
    }

    /**
     * Give a domain address back.
     *
     * @param domainKey as claimed.
     */
    synchronized void release(final String domainKey)
    {
        listening.remove(domainKey);
    }

    /**
     * Close the client, then the embedded driver, and delete its directory.
     */
    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        CloseHelper.quietClose(aeron);
        if (null != driver)
        {
            CloseHelper.quietClose(driver);
            IoUtil.delete(new File(directory), true);
        }
    }
}
