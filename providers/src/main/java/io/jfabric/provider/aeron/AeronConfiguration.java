package io.jfabric.provider.aeron;

import io.aeron.driver.Configuration;
import io.aeron.protocol.DataHeaderFlyweight;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.DatagramInfo;

/**
 * Property names and defaults of the aeron provider. They are read when a fabric (the media driver) or a domain
 * (its subscriptions and publications) opens, never on the data path. Aeron's own settings (MTU, socket buffers,
 * idle strategies, timeouts) are Aeron system properties ({@code aeron.*}) and pass through unchanged: the
 * embedded driver sets only what the user left unset (see {@link AeronFabricBackend}).
 * <p>
 * Threading: stateless, thread-safe.
 */
public final class AeronConfiguration
{
    /**
     * System property: the directory of an external media driver to use instead of the embedded one. Aeron's own
     * {@code aeron.dir} is honoured the same way when this one is not set.
     */
    public static final String DIR_PROP = "jfabric.aeron.dir";
    /** Aeron's own property naming a media driver directory. */
    public static final String AERON_DIR_PROP = "aeron.dir";
    /** System property: the host (name or numeric address) a domain listens on when its info names none. */
    public static final String HOST_PROP = "jfabric.aeron.host";
    /** Default host: the loopback address (one host; set the property or a node for several hosts). */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /**
     * System property: milliseconds a peer may stay unreachable (its publication not connected, or never connected
     * after the first send) before it is reported down and what waits on it fails.
     */
    public static final String LIVENESS_TIMEOUT_PROP = "jfabric.aeron.livenessTimeoutMs";
    /** Default liveness timeout, milliseconds. */
    public static final long DEFAULT_LIVENESS_TIMEOUT_MS = 3000;
    /**
     * System property: term length of the publications a domain creates (Aeron's {@code term-length} channel
     * parameter), a power of two from 64 KiB to 1 GiB. A frame may be up to an eighth of it.
     */
    public static final String TERM_LENGTH_PROP = "jfabric.aeron.termLength";
    /** Default term length: 4 MiB, so frames up to 512 KiB (the runtime's 256 KiB chunks fit). */
    public static final int DEFAULT_TERM_LENGTH = 4 * 1024 * 1024;
    /**
     * System property: milliseconds an address vector insert waits at most for the publications to a new peer to
     * connect (0: not at all), so that the first send to a live peer goes at once.
     */
    public static final String CONNECT_WAIT_PROP = "jfabric.aeron.connectWaitMs";
    /** Default connect wait at insert, milliseconds. */
    public static final long DEFAULT_CONNECT_WAIT_MS = 500;
    /**
     * System property: {@code true} (default) to reach peers that listen on this process's media driver (processes
     * sharing an external driver, domains of one fabric) over {@code aeron:ipc} instead of UDP through the driver;
     * {@code false} for UDP to every peer.
     */
    public static final String IPC_PROP = "jfabric.aeron.ipc";
    /** Default stream id of a domain's requests; its answers use the next one. */
    public static final int DEFAULT_STREAM = 1001;
    /**
     * Bytes of the runtime's frame header in front of a message's payload ({@code DatagramInfo.FRAME_OVERHEAD}) plus
     * Aeron's data header: what one UDP datagram of the MTU carries besides the message.
     */
    static final int DATAGRAM_OVERHEAD = DatagramInfo.FRAME_OVERHEAD + DataHeaderFlyweight.HEADER_LENGTH;
    /** Period of the agent's liveness scan over its peers, milliseconds. */
    static final long SCAN_INTERVAL_MS = 20;

    private AeronConfiguration()
    {
    }

    /**
     * @return the external driver's directory, or null for an embedded driver.
     */
    static String externalDirectory()
    {
        final String dir = System.getProperty(DIR_PROP);
        if (null != dir && !dir.isBlank())
        {
            return dir.trim();
        }
        final String aeronDir = System.getProperty(AERON_DIR_PROP);
        return null != aeronDir && !aeronDir.isBlank() ? aeronDir.trim() : null;
    }

    /**
     * @return true when domains use {@code aeron:ipc} to peers on their driver.
     */
    static boolean ipc()
    {
        final String value = System.getProperty(IPC_PROP);
        return null == value || value.isBlank() || !"false".equalsIgnoreCase(value.trim());
    }

    /**
     * @return the default host.
     */
    static String host()
    {
        final String host = System.getProperty(HOST_PROP);
        return null == host || host.isBlank() ? DEFAULT_HOST : host.trim();
    }

    /**
     * @return the liveness timeout in milliseconds.
     * @throws FabricException EINVAL for a value that is not a number from 100 to 3600000.
     */
    static long livenessTimeoutMs()
    {
        final long value = longValue(LIVENESS_TIMEOUT_PROP, DEFAULT_LIVENESS_TIMEOUT_MS);
        if (value < 100 || value > 3_600_000)
        {
            throw new FabricException(Errno.EINVAL, LIVENESS_TIMEOUT_PROP + "=" + value + " must be from 100 to " +
                "3600000 ms");
        }
        return value;
    }

    /**
     * @return the longest wait at insert for a new peer's publications, milliseconds.
     * @throws FabricException EINVAL for a value that is not a number from 0 to 60000.
     */
    static long connectWaitMs()
    {
        final long value = longValue(CONNECT_WAIT_PROP, DEFAULT_CONNECT_WAIT_MS);
        if (value < 0 || value > 60_000)
        {
            throw new FabricException(Errno.EINVAL, CONNECT_WAIT_PROP + "=" + value + " must be from 0 to 60000 ms");
        }
        return value;
    }

    /**
     * The MTU of datagram publications: Aeron's {@code aeron.mtu.length} (default 1408), also set on each datagram
     * publication's channel, so that a datagram is one UDP packet whichever driver sends it.
     *
     * @return bytes.
     */
    static int datagramMtu()
    {
        return Configuration.mtuLength();
    }

    /**
     * The largest {@code FI_EP_DGRAM} message: one UDP packet of {@link #datagramMtu()} less Aeron's data header and
     * the runtime's frame header (1312 bytes with the default MTU). A datagram is never fragmented, so a lost
     * packet loses one whole datagram and never leaves a part of one.
     *
     * @return bytes.
     */
    static int datagramMaxMsgSize()
    {
        return datagramMtu() - DATAGRAM_OVERHEAD;
    }

    /**
     * @return the term length of the publications.
     * @throws FabricException EINVAL for a value that is not a power of two from 64 KiB to 1 GiB.
     */
    static int termLength()
    {
        final long value = longValue(TERM_LENGTH_PROP, DEFAULT_TERM_LENGTH);
        if (Long.bitCount(value) != 1 || value < 64 * 1024 || value > 1 << 30)
        {
            throw new FabricException(Errno.EINVAL, TERM_LENGTH_PROP + "=" + value +
                " must be a power of two from 65536 to 1073741824");
        }
        return (int) value;
    }

    private static long longValue(final String property, final long defaultValue)
    {
        final String configured = System.getProperty(property);
        if (null == configured || configured.isBlank())
        {
            return defaultValue;
        }
        try
        {
            return Long.parseLong(configured.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new FabricException(Errno.EINVAL, property + "='" + configured + "' is not a number");
        }
    }
}
