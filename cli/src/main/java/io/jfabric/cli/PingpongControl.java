package io.jfabric.cli;

import io.jfabric.loadtest.PingpongEndpoint;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The TCP control connection of a two-sided ping-pong (as {@code fi_pingpong}'s): the client sends the test
 * parameters, both exchange endpoint addresses, sync before each size, and exchange their counts (and the
 * client's percentiles) after it.
 * <p>
 * Frames: one type byte, a 4-byte big-endian body length, the body ({@link DataOutputStream} encoding). A reader
 * thread queues incoming frames, so that every wait for one has a deadline, and reports the loss of the connection
 * (EOF or an error) at once through {@link #onLost(Runnable)}, even while the owner is in a measured loop.
 * <p>
 * Control path. {@link #send} and {@link #expect} are called by one owner thread.
 */
final class PingpongControl implements AutoCloseable
{
    static final byte LOST = 0;
    static final byte HELLO = 1;
    static final byte NAME = 2;
    static final byte SYNC = 3;
    static final byte READY = 4;
    static final byte DONE = 5;
    static final byte BYE = 6;
    static final byte ERROR = 7;
    /** Not on the wire: a signal stopped this side ({@link #stopWaits()}). */
    static final byte STOPPED = 8;

    /** Magic and protocol version at the start of HELLO. */
    static final int MAGIC = 0x4A465050;
    static final int VERSION = 2;
    private static final int MAX_FRAME = 1 << 20;
    private static final String[] NAMES =
        { "LOST", "HELLO", "NAME", "SYNC", "READY", "DONE", "BYE", "ERROR", "STOPPED" };

    private final Socket socket;
    private final String peer;
    private final DataOutputStream out;
    private final BlockingQueue<Frame> inbox = new LinkedBlockingQueue<>();
    private final Thread reader;
    private volatile Runnable onLost;
    private volatile boolean lost;
    private volatile String peerError;
    private volatile boolean closing;

    private PingpongControl(final Socket socket, final String peer) throws IOException
    {
        this.socket = socket;
        this.peer = peer;
        socket.setTcpNoDelay(true);
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        final DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        reader = new Thread(() -> readLoop(in), "jfabric-pingpong-control");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Connect to a server.
     *
     * @param host      host name or address.
     * @param port      the server's control port.
     * @param srcPort   local port to bind, 0 for any.
     * @param timeoutMs connect deadline.
     * @return the connection.
     * @throws PingpongFailure (exit 1) naming the address when it cannot be reached.
     */
    static PingpongControl connect(final String host, final int port, final int srcPort, final long timeoutMs)
    {
        final String address = host + ":" + port;
        final Socket socket = new Socket();
        try
        {
            if (0 != srcPort)
            {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(srcPort));
            }
            final InetSocketAddress target = new InetSocketAddress(host, port);
            if (target.isUnresolved())
            {
                throw new UnknownHostException("unknown host");
            }
            socket.connect(target, (int) Math.min(Integer.MAX_VALUE, timeoutMs));
            return new PingpongControl(socket, address);
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            closeQuietly(socket);
            throw PingpongFailure.failed("cannot reach the pingpong server at " + address + ": " + reason(ex));
        }
    }

    /**
     * Accept one client.
     *
     * @param server    the listening socket.
     * @param timeoutMs accept deadline.
     * @return the connection.
     * @throws PingpongFailure (exit 1) when no client comes in time.
     */
    static PingpongControl accept(final ServerSocket server, final long timeoutMs)
    {
        try
        {
            server.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, timeoutMs)));
            final Socket socket = server.accept();
            try
            {
                return new PingpongControl(socket, socket.getInetAddress().getHostAddress() + ":" + socket.getPort());
            }
            catch (final IOException ex)
            {
                closeQuietly(socket);
                throw ex;
            }
        }
        catch (final SocketTimeoutException ex)
        {
            throw PingpongFailure.failed("no client connected to control port " + server.getLocalPort() +
                " within " + timeoutMs + " ms");
        }
        catch (final IOException ex)
        {
            throw PingpongFailure.failed("accepting a client on control port " + server.getLocalPort() + ": " +
                reason(ex));
        }
    }

    /**
     * @return the peer's address, host:port.
     */
    String peer()
    {
        return peer;
    }

    /**
     * Run {@code action} (from the reader thread) when the peer stops: the connection is lost or the peer sent an
     * ERROR frame; at once if that already happened.
     *
     * @param action what to do, typically {@link PingpongEndpoint#abort()}.
     */
    void onLost(final Runnable action)
    {
        onLost = action;
        if ((lost || null != peerError) && null != action)
        {
            action.run();
        }
    }

    /**
     * @return whether the peer stopped: the connection was lost (EOF or a read error) or an ERROR frame came.
     */
    boolean peerStopped()
    {
        return lost || null != peerError;
    }

    /**
     * @return the reason of the peer's ERROR frame, or null when it sent none.
     */
    String peerError()
    {
        return peerError;
    }

    /**
     * Send one frame.
     *
     * @param type the frame type.
     * @param body writes the body.
     * @throws PingpongFailure (exit 1) when the connection is gone.
     */
    void send(final byte type, final Body body)
    {
        try
        {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final DataOutputStream data = new DataOutputStream(bytes);
            if (null != body)
            {
                body.write(data);
            }
            data.flush();
            out.writeByte(type);
            out.writeInt(bytes.size());
            bytes.writeTo(out);
            out.flush();
        }
        catch (final IOException ex)
        {
            throw PingpongFailure.failed("lost the control connection to " + peer + " sending " + NAMES[type] +
                ": " + reason(ex));
        }
    }

    /**
     * Tell the peer why this side stops (best effort).
     *
     * @param message the reason.
     */
    void sendError(final String message)
    {
        try
        {
            send(ERROR, (o) -> o.writeUTF(message.length() > 2000 ? message.substring(0, 2000) : message));
        }
        catch (final PingpongFailure ignore)
        {
            // the peer is gone already: nobody to tell
        }
    }

    /**
     * Wait for the next frame, which must be of {@code type}.
     *
     * @param type      the expected type.
     * @param timeoutMs deadline.
     * @param what      what is awaited, for the message.
     * @return the body.
     * @throws PingpongFailure (exit 1) on timeout, loss of the connection, an ERROR frame from the peer or another
     *                         frame type.
     */
    DataInputStream expect(final byte type, final long timeoutMs, final String what)
    {
        return expect(type, type, timeoutMs, what).body;
    }

    /**
     * Wait for the next frame, which must be of one of two types.
     *
     * @param type      one expected type.
     * @param other     the other expected type.
     * @param timeoutMs deadline.
     * @param what      what is awaited, for the message.
     * @return the frame.
     * @throws PingpongFailure as {@link #expect(byte, long, String)}.
     */
    Frame expect(final byte type, final byte other, final long timeoutMs, final String what)
    {
        final Frame frame;
        try
        {
            frame = inbox.poll(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw PingpongFailure.failed("interrupted waiting for " + what);
        }
        return check(frame, type, other, timeoutMs, what);
    }

    /**
     * As {@link #expect(byte, long, String)}, running one duty cycle of {@code side}'s domain between polls: with
     * manual progress a side's last send leaves only when its domain is progressed, and the peer's answer on this
     * connection comes only after that send arrived.
     *
     * @param type      the expected type.
     * @param timeoutMs deadline.
     * @param what      what is awaited, for the message.
     * @param side      the side to progress.
     * @return the body.
     */
    DataInputStream expect(final byte type, final long timeoutMs, final String what, final PingpongEndpoint side)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        Frame frame;
        while (null == (frame = inbox.poll()))
        {
            side.domain().progress();
            if (System.nanoTime() - deadline > 0)
            {
                break;
            }
            Thread.yield();
        }
        return check(frame, type, type, timeoutMs, what).body;
    }

    private Frame check(final Frame frame, final byte type, final byte other, final long timeoutMs, final String what)
    {
        if (null == frame)
        {
            throw PingpongFailure.failed("no " + what + " from " + peer + " within " + timeoutMs + " ms");
        }
        if (LOST == frame.type)
        {
            inbox.offer(frame);
            throw PingpongFailure.failed("the peer at " + peer + " closed the control connection while this side " +
                "waited for " + what);
        }
        if (STOPPED == frame.type)
        {
            inbox.offer(frame);
            throw PingpongFailure.failed("stopped by a signal while this side waited for " + what);
        }
        if (ERROR == frame.type)
        {
            throw PingpongFailure.failed("the peer at " + peer + " stopped: " + peerError);
        }
        if (frame.type != type && frame.type != other)
        {
            throw PingpongFailure.failed("protocol error: " + peer + " sent " + name(frame.type) + " while " +
                "this side waited for " + what);
        }
        return frame;
    }

    private static String name(final byte type)
    {
        return type >= 0 && type < NAMES.length ? NAMES[type] : "frame type " + type;
    }

    private void readLoop(final DataInputStream in)
    {
        try
        {
            while (true)
            {
                final byte type = in.readByte();
                final int length = in.readInt();
                if (length < 0 || length > MAX_FRAME || type <= LOST || type >= NAMES.length)
                {
                    throw new IOException("malformed frame");
                }
                final byte[] body = new byte[length];
                in.readFully(body);
                if (ERROR == type)
                {
                    peerError = new DataInputStream(new ByteArrayInputStream(body)).readUTF();
                }
                inbox.offer(new Frame(type, body));
                if (ERROR == type)
                {
                    stopped();
                }
            }
        }
        catch (final IOException ex)
        {
            lost = true;
            inbox.offer(new Frame(LOST, new byte[0]));
            if (!closing)
            {
                stopped();
            }
        }
    }

    private void stopped()
    {
        final Runnable action = onLost;
        if (null != action)
        {
            action.run();
        }
    }

    /**
     * Close the connection (the peer reads EOF) and stop the reader thread.
     */
    @Override
    public void close()
    {
        closing = true;
        closeQuietly(socket);
        try
        {
            reader.join(1000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * End this side's current and later waits for frames at once ({@link PingpongFailure} "stopped by a signal");
     * the connection stays open, so this side can still tell the peer why it stops. Any thread.
     */
    void stopWaits()
    {
        inbox.offer(new Frame(STOPPED, new byte[0]));
    }

    static String reason(final Exception ex)
    {
        final String message = ex.getMessage();
        return null == message || message.isEmpty() ? ex.getClass().getSimpleName() : message;
    }

    private static void closeQuietly(final AutoCloseable c)
    {
        try
        {
            c.close();
        }
        catch (final Exception ignore)
        {
            // closing after a failure: the first error is the one reported
        }
    }

    /**
     * Writes a frame body.
     */
    @FunctionalInterface
    interface Body
    {
        /**
         * @param out the body's stream.
         * @throws IOException never for the in-memory stream used.
         */
        void write(DataOutputStream out) throws IOException;
    }

    /**
     * One received frame.
     */
    static final class Frame
    {
        final byte type;
        final DataInputStream body;

        Frame(final byte type, final byte[] body)
        {
            this.type = type;
            this.body = new DataInputStream(new ByteArrayInputStream(body));
        }
    }
}
