package io.jfabric.provider.aeron;

import io.aeron.Aeron;
import io.aeron.CncFileDescriptor;
import io.aeron.Subscription;
import io.aeron.exceptions.AeronException;
import org.agrona.IoUtil;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Listening again on the address of a process that was killed while it shared an external media driver: the driver
 * keeps the dead client's UDP socket (and so the address) until its own client liveness timeout (10 s by default)
 * reaps the client, so a peer restarted under the same address within that time would find the address in use.
 * When the bind fails with "Address already in use", the driver is an external one, and the driver's registry
 * ({@link AeronIpcRegistry}) names a domain at that address whose client stopped beating, the subscription is asked
 * for again, with a backoff, until the driver's client timeout (read from its CnC file) and a second have passed.
 * An address held by a live process fails at once, as before.
 * <p>
 * Threading: control path (domain open).
 */
final class AeronListenRetry
{
    /** A client whose heartbeat did not move for this long is taken for dead (Aeron's keepalive: 500 ms). */
    static final long DEAD_CLIENT_STALE_MS = 1_500;
    private static final long DEFAULT_CLIENT_TIMEOUT_MS = 10_000;
    private static final long MARGIN_MS = 1_000;
    private static final long MAX_PAUSE_MS = 100;

    private AeronListenRetry()
    {
    }

    /**
     * Subscribe to a domain's listening channel, waiting for a dead client of an external driver to release it.
     *
     * @param fabric  the fabric.
     * @param channel the channel.
     * @param stream  the stream.
     * @param domain  the domain's address (endpoint 0).
     * @return the subscription.
     * @throws AeronException when the driver refuses the channel (and no dead client holds the address, or the
     *                        wait is over).
     */
    static Subscription subscribe(
        final AeronFabricBackend fabric, final String channel, final int stream, final AeronAddress domain)
    {
        final Aeron aeron = fabric.aeron();
        long deadlineMs = 0;
        long pauseMs = 1;
        while (true)
        {
            try
            {
                return aeron.addSubscription(channel, stream);
            }
            catch (final AeronException ex)
            {
                if (fabric.embedded() || !addressInUse(ex) || 0 == domain.port() ||
                    !new AeronIpcRegistry(fabric.directory(), aeron, fabric.livenessTimeoutMs())
                        .heldByDeadClient(domain, DEAD_CLIENT_STALE_MS))
                {
                    throw ex;
                }
                final long now = System.currentTimeMillis();
                if (0 == deadlineMs)
                {
                    deadlineMs = now + clientTimeoutMs(fabric.directory()) + MARGIN_MS;
                }
                else if (now > deadlineMs)
                {
                    throw ex;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pauseMs));
                pauseMs = Math.min(MAX_PAUSE_MS, pauseMs * 2);
            }
        }
    }

    /**
     * @param ex the driver's refusal.
     * @return true when it says the socket's address is in use.
     */
    static boolean addressInUse(final AeronException ex)
    {
        final String message = ex.getMessage();
        return null != message && message.contains("Address already in use");
    }

    /**
     * @param directory the driver's directory.
     * @return its client liveness timeout from its CnC file, milliseconds (Aeron's default when unreadable).
     */
    static long clientTimeoutMs(final String directory)
    {
        try
        {
            final MappedByteBuffer cnc = IoUtil.mapExistingFile(new File(directory, CncFileDescriptor.CNC_FILE), "cnc");
            try
            {
                return TimeUnit.NANOSECONDS.toMillis(
                    CncFileDescriptor.clientLivenessTimeoutNs(CncFileDescriptor.createMetaDataBuffer(cnc)));
            }
            finally
            {
                IoUtil.unmap(cnc);
            }
        }
        catch (final RuntimeException ex)
        {
            return DEFAULT_CLIENT_TIMEOUT_MS;
        }
    }
}
