package io.jfabric.provider.aeron;

import io.aeron.Aeron;
import io.aeron.status.HeartbeatTimestamp;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;

/**
 * Which domains listen on the media driver this fabric's client is attached to, so that domains of processes
 * sharing one driver reach each other over {@code aeron:ipc} instead of UDP through that driver.
 * <p>
 * The registry is a directory {@code jfabric-ipc} inside the driver's directory (so it names only domains of that
 * driver, and goes with the directory when the driver deletes it). A domain writes one file named after its UDP
 * address ({@code host:port/stream}, characters other than letters and digits as {@code _}) holding one line:
 * {@code <ipc stream> <aeron client id> <incarnation>}. The file is written to a temporary name and moved into
 * place, so a reader never sees half of it, and removed when the domain closes. The domain's IPC streams are the
 * pair {@code stream, stream + 1} (requests, answers) with {@code stream} from {@link #allocateStream}: two
 * correlation ids of the driver apart from the small stream ids applications use.
 * <p>
 * A peer counts as on this driver only when its file exists and its client's heartbeat counter in this driver's
 * counters is allocated, names that client, and was updated within the liveness timeout: a file left by a killed
 * process is ignored (and so is one copied from another host). The same heartbeat is the liveness of an IPC peer
 * ({@link #alive}): a killed process stops updating it at once, whereas its publications and subscriptions stay in
 * the driver until the driver's client timeout.
 * <p>
 * Threading: the file methods are control path (domain open and close, the first contact with a peer); {@link #alive}
 * allocates nothing and runs on the agent.
 */
final class AeronIpcRegistry
{
    /** The registry's directory inside the driver's. */
    static final String DIRECTORY = "jfabric-ipc";
    /** Base of the IPC stream ids of domains (far above the stream ids applications pick by hand). */
    static final int STREAM_BASE = 0x4A46_0000;
    /** The IPC channel's URI without parameters. */
    static final String CHANNEL = "aeron:ipc";

    private final Path directory;
    private final CountersReader counters;
    private final long livenessTimeoutMs;

    AeronIpcRegistry(final String driverDirectory, final Aeron aeron, final long livenessTimeoutMs)
    {
        this.directory = Paths.get(driverDirectory, DIRECTORY);
        this.counters = aeron.countersReader();
        this.livenessTimeoutMs = livenessTimeoutMs;
    }

    /**
     * A peer domain found on this driver.
     *
     * @param stream           its IPC request stream (answers on the next).
     * @param clientId         its Aeron client's id.
     * @param heartbeatCounter the id of that client's heartbeat counter in this driver's counters.
     * @param incarnation      the incarnation of the domain that wrote the entry.
     */
    record Entry(int stream, long clientId, int heartbeatCounter, long incarnation)
    {
        /**
         * @param other another entry, or null.
         * @return true when both name the same domain's streams (the same client, stream and incarnation).
         */
        boolean sameAs(final Entry other)
        {
            return null != other && stream == other.stream && clientId == other.clientId &&
                incarnation == other.incarnation;
        }
    }

    /**
     * A pair of IPC stream ids unique among the domains of this driver (driver-wide correlation ids).
     *
     * @param aeron the client.
     * @return the request stream; answers use the next one.
     */
    static int allocateStream(final Aeron aeron)
    {
        return STREAM_BASE + (int) ((aeron.nextCorrelationId() << 1) & 0x3FFF_FFFEL);
    }

    /**
     * Announce a domain to the processes of this driver.
     *
     * @param domain      the domain's UDP address (endpoint 0).
     * @param stream      its IPC request stream.
     * @param clientId    its client's id.
     * @param incarnation its incarnation.
     * @return true when written; false when the driver's directory takes no file (then peers reach it by UDP).
     */
    boolean register(final AeronAddress domain, final int stream, final long clientId, final long incarnation)
    {
        try
        {
            Files.createDirectories(directory);
            final Path file = file(domain);
            final Path temporary = Files.createTempFile(directory, ".new-", ".tmp");
            Files.write(temporary, (stream + " " + clientId + " " + incarnation + "\n")
                .getBytes(StandardCharsets.US_ASCII));
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return true;
        }
        catch (final IOException | RuntimeException ex)
        {
            return false;
        }
    }

    /**
     * Withdraw a domain's file when it is still this incarnation's (a later domain may have taken the address).
     *
     * @param domain      the domain's UDP address.
     * @param incarnation its incarnation.
     */
    void unregister(final AeronAddress domain, final long incarnation)
    {
        final Path file = file(domain);
        final String[] fields = read(file);
        if (null != fields && fields[2].equals(Long.toString(incarnation)))
        {
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException ex)
            {
                // the driver's directory went first
            }
        }
    }

    /**
     * Find a live peer domain on this driver.
     *
     * @param domain the peer's UDP address (endpoint 0).
     * @return its entry, or null when it is not registered here or its client is gone.
     */
    Entry lookup(final AeronAddress domain)
    {
        final String[] fields = read(file(domain));
        if (null == fields)
        {
            return null;
        }
        try
        {
            final int stream = Integer.parseInt(fields[0]);
            final long clientId = Long.parseLong(fields[1]);
            final int counterId = HeartbeatTimestamp.findCounterIdByRegistrationId(
                counters, HeartbeatTimestamp.HEARTBEAT_TYPE_ID, clientId);
            if (CountersReader.NULL_COUNTER_ID == counterId)
            {
                return null;
            }
            final Entry entry = new Entry(stream, clientId, counterId, Long.parseLong(fields[2]));
            return alive(entry, System.currentTimeMillis()) ? entry : null;
        }
        catch (final NumberFormatException ex)
        {
            return null;
        }
    }

    /**
     * Whether an address is registered here by a domain whose client stopped beating (a process killed while it
     * listened on it): the driver keeps that client's UDP socket until its own client timeout, so a restart under
     * the same address may wait for it.
     *
     * @param domain  the address (endpoint 0).
     * @param staleMs how long the client's heartbeat must not have moved.
     * @return true when its file exists and its client is gone or silent for longer than {@code staleMs}.
     */
    boolean heldByDeadClient(final AeronAddress domain, final long staleMs)
    {
        final String[] fields = read(file(domain));
        if (null == fields)
        {
            return false;
        }
        try
        {
            final long clientId = Long.parseLong(fields[1]);
            final int counterId = HeartbeatTimestamp.findCounterIdByRegistrationId(
                counters, HeartbeatTimestamp.HEARTBEAT_TYPE_ID, clientId);
            return CountersReader.NULL_COUNTER_ID == counterId ||
                System.currentTimeMillis() - counters.getCounterValue(counterId) > staleMs;
        }
        catch (final NumberFormatException ex)
        {
            return false;
        }
    }

    /**
     * Whether a peer's client still beats: its heartbeat counter still names it and moved within the liveness
     * timeout. Allocates nothing.
     *
     * @param entry the peer's entry.
     * @param nowMs the epoch clock, milliseconds.
     * @return true while the peer's process lives.
     */
    boolean alive(final Entry entry, final long nowMs)
    {
        return HeartbeatTimestamp.isActive(
            counters, entry.heartbeatCounter(), HeartbeatTimestamp.HEARTBEAT_TYPE_ID, entry.clientId()) &&
            nowMs - counters.getCounterValue(entry.heartbeatCounter()) <= livenessTimeoutMs;
    }

    private Path file(final AeronAddress domain)
    {
        return directory.resolve(domain.domainKey().replaceAll("[^A-Za-z0-9]", "_"));
    }

    private static String[] read(final Path file)
    {
        try
        {
            final String[] fields = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim().split(" ");
            return 3 == fields.length ? fields : null;
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }
}
