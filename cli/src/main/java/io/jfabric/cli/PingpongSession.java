package io.jfabric.cli;

import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Info;
import io.jfabric.Protocol;
import io.jfabric.loadtest.PingpongEndpoint;
import io.jfabric.loadtest.PingpongLoop;
import org.HdrHistogram.Histogram;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * One side of a two-sided ping-pong run over a {@link PingpongControl} connection. The protocol:
 * <ol>
 *     <li>client → HELLO (magic, version, {@link PingpongParams}); the server checks provider and endpoint type
 *     against its own and adopts the rest;</li>
 *     <li>server → NAME (its endpoint's, or for {@code FI_EP_MSG} its passive endpoint's, address); the client
 *     opens its side (inserting the address, or connecting to it) and answers NAME with its own address;</li>
 *     <li>per size: client → SYNC(size); the server posts its first receive and answers READY(size); both run the
 *     warm-up and the measured loop ({@link PingpongLoop}); client → DONE (its count, time and percentiles),
 *     server → DONE (its count and time);</li>
 *     <li>client → BYE, server → BYE.</li>
 * </ol>
 * A side that fails sends ERROR with its reason; a peer's ERROR or the loss of the connection aborts the waits of
 * this side at once (also inside the measured loop).
 * <p>
 * Control path; one thread per session.
 */
final class PingpongSession
{
    /** How long a transport error waits for the control connection to tell whether the peer left. */
    private static final long PEER_GONE_GRACE_MS = 2000;
    /** Highest round-trip time the histograms track (longer ones are recorded as this). */
    static final long HISTOGRAM_MAX_NS = TimeUnit.HOURS.toNanos(1);

    private final Info info;
    private final String idle;
    private final long timeoutMs;
    private final Consumer<PingpongResult> sink;
    private java.util.function.IntConsumer runStarted = (size) -> { };
    private BiConsumer<PingpongParams, String> helloAccepted = (params, peer) -> { };
    private PingpongInterrupt interrupt = new PingpongInterrupt();

    /**
     * @param info      the info this side opens.
     * @param idle      idle strategy name.
     * @param timeoutMs deadline of every wait.
     * @param sink      receives each size's result as soon as it is known.
     */
    PingpongSession(final Info info, final String idle, final long timeoutMs, final Consumer<PingpongResult> sink)
    {
        this.info = info;
        this.idle = idle;
        this.timeoutMs = timeoutMs;
        this.sink = sink;
    }

    /**
     * Be told when the server has posted its first receive of a size and answered READY: the client's data run
     * starts right after (the server's {@code -v} reports it).
     *
     * @param listener receives the size.
     * @return this.
     */
    PingpongSession runStarted(final java.util.function.IntConsumer listener)
    {
        this.runStarted = listener;
        return this;
    }

    /**
     * Be stopped by a signal: the interrupt aborts this session's waits; the measuring side passes the stopped
     * size's round trips so far to the sink, then fails with the reason and the count.
     *
     * @param interrupt raised on SIGINT/SIGTERM.
     * @return this.
     */
    PingpongSession interruptible(final PingpongInterrupt interrupt)
    {
        this.interrupt = interrupt;
        return this;
    }

    /**
     * Be told, on the server, when a client's HELLO was accepted: its parameters are the ones this server runs.
     *
     * @param listener receives the client's parameters and address.
     * @return this.
     */
    PingpongSession helloAccepted(final BiConsumer<PingpongParams, String> listener)
    {
        this.helloAccepted = listener;
        return this;
    }

    private String progress()
    {
        return String.valueOf(info.domainAttr().dataProgress());
    }

    /**
     * Run the client side.
     *
     * @param control the connection to the server.
     * @param params  the test parameters.
     * @return one result per size.
     * @throws PingpongFailure when the run cannot complete.
     */
    List<PingpongResult> client(final PingpongControl control, final PingpongParams params)
    {
        interrupt.onRaise(control::stopWaits);
        control.send(PingpongControl.HELLO, (o) ->
        {
            o.writeInt(PingpongControl.MAGIC);
            o.writeInt(PingpongControl.VERSION);
            params.write(o);
        });
        final byte[] serverName = readBytes(control.expect(PingpongControl.NAME, timeoutMs,
            "the server's endpoint address"), control);
        PingpongEndpoint side = null;
        try
        {
            final int maxSize = params.maxSize();
            if (EndpointType.MSG == params.epType)
            {
                side = PingpongEndpoint.connect(info, serverName, params.tagged, maxSize, idle, timeoutMs,
                    control::peerStopped);
            }
            else
            {
                side = PingpongEndpoint.open(info, params.tagged, maxSize, idle, timeoutMs);
                side.peer(serverName);
            }
            control.onLost(side::abort);
            interrupt.onRaise(side::abort);
            final byte[] name = side.name();
            control.send(PingpongControl.NAME, (o) -> writeBytes(o, name));

            final List<PingpongResult> results = new ArrayList<>();
            final PingpongLoop.Stats stats = new PingpongLoop.Stats();
            for (int i = 0; i < params.sizeCount(); i++)
            {
                final int size = params.size(i);
                control.send(PingpongControl.SYNC, (o) -> o.writeInt(size));
                final int ready = readInt(control.expect(PingpongControl.READY, timeoutMs, "READY"), control);
                if (ready != size)
                {
                    throw fail(control, "protocol error: the server is ready for " + ready + " B, not " + size);
                }
                final Histogram histogram = new Histogram(1, HISTOGRAM_MAX_NS, 3);
                if (params.warmup > 0)
                {
                    PingpongLoop.ping(side, size, params.warmup, 0, params.check, null, stats);
                    check(control, side, stats, params, size, true);
                }
                PingpongLoop.ping(side, size, params.iterations, params.warmup, params.check, histogram, stats);
                if (0 != stats.status() && interrupt.raised())
                {
                    // the round trips so far are a result too: the sink prints them, then check() stops the run
                    final PingpongResult partial = new PingpongResult(params, progress(), size, stats.completed(),
                        stats.completed(), stats.elapsedNs(), PingpongResult.percentiles(histogram),
                        histogram.getMean(), histogram);
                    results.add(partial);
                    sink.accept(partial);
                }
                check(control, side, stats, params, size, false);
                final int completed = stats.completed();
                final long elapsed = stats.elapsedNs();
                final long[] percentiles = PingpongResult.percentiles(histogram);
                final double mean = histogram.getMean();
                control.send(PingpongControl.DONE, (o) ->
                {
                    o.writeInt(size);
                    o.writeInt(completed);
                    o.writeLong(elapsed);
                    for (final long p : percentiles)
                    {
                        o.writeLong(p);
                    }
                    o.writeDouble(mean);
                });
                final DataInputStream done = control.expect(PingpongControl.DONE, timeoutMs, "the server's DONE");
                final int serverSize = readInt(done, control);
                if (serverSize != size)
                {
                    throw fail(control, "protocol error: the server finished " + serverSize + " B, not " + size);
                }
                final PingpongResult result = new PingpongResult(params, progress(), size, params.iterations,
                    completed, elapsed, percentiles, mean, histogram);
                results.add(result);
                sink.accept(result);
            }
            control.send(PingpongControl.BYE, null);
            control.expect(PingpongControl.BYE, timeoutMs, "the server's BYE");
            return results;
        }
        catch (final FabricException ex)
        {
            throw fail(control, "opening the " + info.fabricAttr().provName() + " endpoint: " + ex.getMessage());
        }
        finally
        {
            if (null != side)
            {
                side.close();
            }
        }
    }

    /**
     * Run the server side for one client.
     *
     * @param control the connection to the client.
     * @return one result per size (percentiles as the client measured them).
     * @throws PingpongFailure when the run cannot complete.
     */
    List<PingpongResult> server(final PingpongControl control)
    {
        interrupt.onRaise(control::stopWaits);
        final DataInputStream hello = control.expect(PingpongControl.HELLO, timeoutMs, "the client's HELLO");
        final PingpongParams params;
        try
        {
            final int magic = hello.readInt();
            final int version = hello.readInt();
            if (PingpongControl.MAGIC != magic || PingpongControl.VERSION != version)
            {
                throw fail(control, "protocol error: the client at " + control.peer() + " is not a jfabric " +
                    "pingpong of protocol version " + PingpongControl.VERSION);
            }
            params = PingpongParams.read(hello);
        }
        catch (final IOException ex)
        {
            throw fail(control, "protocol error: bad HELLO from " + control.peer() + ": " + ex.getMessage());
        }
        final String provider = info.fabricAttr().provName();
        if (!provider.equals(params.provider) || params.epType != info.epAttr().type())
        {
            throw fail(control, "the client asks for provider " + params.provider + " with " +
                params.epType.fiName() + "; this server runs " + provider + " with " + info.epAttr().type().fiName());
        }
        if (params.maxSize() > info.epAttr().maxMsgSize())
        {
            throw fail(control, "the client asks for " + params.maxSize() + " B messages; " + provider +
                " carries at most " + info.epAttr().maxMsgSize());
        }
        final long pid = ProcessHandle.current().pid();
        if (Protocol.JFABRIC_INPROC == info.epAttr().protocol() && params.pid != pid)
        {
            // inproc endpoints are reachable from their own JVM only: the client could never reach this server's
            throw fail(control, "provider " + provider + " reaches endpoints in its own JVM only, and the client " +
                "(pid " + params.pid + ") is another process than this server (pid " + pid + "): use -p shm " +
                "between processes on one host, or run both sides in one process (no --server, no HOST)");
        }
        helloAccepted.accept(params, control.peer());
        PingpongEndpoint side = null;
        PingpongEndpoint.Listener listener = null;
        try
        {
            if (EndpointType.MSG == params.epType)
            {
                listener = PingpongEndpoint.listen(info);
                final byte[] name = listener.name();
                control.send(PingpongControl.NAME, (o) -> writeBytes(o, name));
                side = listener.accept(params.tagged, params.maxSize(), idle, timeoutMs, control::peerStopped);
                listener = null;
                readBytes(control.expect(PingpongControl.NAME, timeoutMs, "the client's endpoint address"), control);
            }
            else
            {
                side = PingpongEndpoint.open(info, params.tagged, params.maxSize(), idle, timeoutMs);
                final byte[] name = side.name();
                control.send(PingpongControl.NAME, (o) -> writeBytes(o, name));
                side.peer(readBytes(control.expect(PingpongControl.NAME, timeoutMs, "the client's endpoint address"),
                    control));
            }
            control.onLost(side::abort);
            interrupt.onRaise(side::abort);
            final List<PingpongResult> results = new ArrayList<>();
            final PingpongLoop.Stats stats = new PingpongLoop.Stats();
            while (true)
            {
                final PingpongControl.Frame frame = control.expect(PingpongControl.SYNC, PingpongControl.BYE,
                    timeoutMs, "the client's SYNC or BYE");
                if (PingpongControl.BYE == frame.type)
                {
                    control.send(PingpongControl.BYE, null);
                    return results;
                }
                final int size = readInt(frame.body, control);
                if (size < 0 || size > params.maxSize())
                {
                    throw fail(control, "protocol error: SYNC for " + size + " B");
                }
                final int posted = side.postRecv(size);
                if (0 != posted)
                {
                    throw fail(control, "posting the first receive of the " + size + " B run: " +
                        Errno.strerror(-posted));
                }
                control.send(PingpongControl.READY, (o) -> o.writeInt(size));
                runStarted.accept(size);
                if (params.warmup > 0)
                {
                    PingpongLoop.pong(side, size, params.warmup, 0, true, params.check, stats);
                    check(control, side, stats, params, size, true);
                }
                PingpongLoop.pong(side, size, params.iterations, params.warmup, false, params.check, stats);
                check(control, side, stats, params, size, false);
                final DataInputStream done = control.expect(PingpongControl.DONE, timeoutMs, "the client's DONE", side);
                final int clientCompleted;
                final long[] percentiles = new long[7];
                final double mean;
                try
                {
                    done.readInt();
                    clientCompleted = done.readInt();
                    done.readLong();
                    for (int i = 0; i < percentiles.length; i++)
                    {
                        percentiles[i] = done.readLong();
                    }
                    mean = done.readDouble();
                }
                catch (final IOException ex)
                {
                    throw fail(control, "protocol error: bad DONE from " + control.peer());
                }
                final int completed = stats.completed();
                final long elapsed = stats.elapsedNs();
                control.send(PingpongControl.DONE, (o) ->
                {
                    o.writeInt(size);
                    o.writeInt(completed);
                    o.writeLong(elapsed);
                });
                final PingpongResult result = new PingpongResult(params, progress(), size, completed,
                    clientCompleted, elapsed, percentiles, mean, null);
                results.add(result);
                sink.accept(result);
            }
        }
        catch (final FabricException ex)
        {
            throw fail(control, "opening the " + provider + " endpoint: " + ex.getMessage());
        }
        finally
        {
            if (null != listener)
            {
                listener.close();
            }
            if (null != side)
            {
                side.close();
            }
        }
    }

    /**
     * A transport error that a departing peer causes (its domain closed or its process died: the fabric may notice
     * before the control connection does) is reported as the peer's departure when the control connection closes
     * within {@link #PEER_GONE_GRACE_MS}.
     */
    private static boolean peerGone(final PingpongControl control, final int status)
    {
        if (Errno.EHOSTUNREACH.negated() != status && Errno.EIO.negated() != status &&
            Errno.ECONNREFUSED.negated() != status)
        {
            return false;
        }
        final long deadline = System.nanoTime() + PEER_GONE_GRACE_MS * 1_000_000L;
        while (!control.peerStopped() && System.nanoTime() - deadline < 0)
        {
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return control.peerStopped();
            }
        }
        return control.peerStopped();
    }

    /**
     * Turn a loop's failure into the one-line reason, with the count of round trips completed so far.
     */
    private void check(
        final PingpongControl control, final PingpongEndpoint side, final PingpongLoop.Stats stats,
        final PingpongParams params, final int size, final boolean warmup)
    {
        final int status = stats.status();
        if (0 == status)
        {
            return;
        }
        final String run = "the " + size + " B run";
        final String why;
        if (interrupt.raised())
        {
            why = "stopped by a signal during " + run;
        }
        else if (Errno.ECANCELED.negated() == status || peerGone(control, status))
        {
            final String error = control.peerError();
            why = null != error ? "the peer at " + control.peer() + " stopped during " + run + " (" + error + ")" :
                "the peer at " + control.peer() + " closed the control connection during " + run;
        }
        else if (Errno.ETIMEDOUT.negated() == status)
        {
            why = "no message from the peer at " + control.peer() + " within " + timeoutMs + " ms during " + run;
        }
        else if (stats.corruptSeq() >= 0)
        {
            why = "data check failed: message " + stats.corruptSeq() + " of " + run + " differs at byte " +
                stats.corruptOffset();
        }
        else if (Errno.EMSGSIZE.negated() == status)
        {
            why = "a message of another length than " + size + " B arrived during " + run;
        }
        else
        {
            final Errno errno = Errno.of(-status);
            why = (side.lastProviderError() != 0 ? "completion error" : "operation failed") + " during " + run + ": " +
                (null != errno ? errno.fiName() + " " : "") + Errno.strerror(-status);
        }
        final String count = warmup ?
            String.format(Locale.ROOT, "%d of %d warm-up round trips completed, 0 of %d measured", stats.completed(),
                params.warmup, params.iterations) :
            String.format(Locale.ROOT, "%d of %d round trips completed", stats.completed(), params.iterations);
        throw fail(control, why + "; " + count);
    }

    private static PingpongFailure fail(final PingpongControl control, final String message)
    {
        if (!control.peerStopped())
        {
            control.sendError(message);
        }
        return PingpongFailure.failed(message);
    }

    private static void writeBytes(final DataOutputStream out, final byte[] bytes) throws IOException
    {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(final DataInputStream in, final PingpongControl control)
    {
        try
        {
            final int length = in.readInt();
            if (length < 0 || length > 4096)
            {
                throw new IOException("address of " + length + " bytes");
            }
            final byte[] bytes = new byte[length];
            in.readFully(bytes);
            return bytes;
        }
        catch (final IOException ex)
        {
            throw fail(control, "protocol error: bad address from " + control.peer() + ": " + ex.getMessage());
        }
    }

    private static int readInt(final DataInputStream in, final PingpongControl control)
    {
        try
        {
            return in.readInt();
        }
        catch (final IOException ex)
        {
            throw fail(control, "protocol error: short frame from " + control.peer());
        }
    }
}
