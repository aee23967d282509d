package io.jfabric;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * What jfabric offers in place of {@code FI_WAIT_FD}: a {@link java.nio.channels.SelectableChannel} that becomes
 * readable when its object (a completion queue, counter, event queue or wait set) has something to read, so that an
 * application can wait on jfabric objects and its own sockets with one {@link java.nio.channels.Selector}.
 * <p>
 * Use it as libfabric's fd: call {@link Fabric#trywait(Object...)} with the object; when it returns 0, register
 * {@link #channel()} for {@link java.nio.channels.SelectionKey#OP_READ} (once) and select; when it returns
 * {@code -EAGAIN}, read the object instead of waiting. {@code trywait} drains the channel and <em>arms</em> it; an
 * event after that arming makes the channel readable (one byte, however many events: signals coalesce), so an event
 * between {@code trywait} and the select is never lost. The channel is signalled by the fabric's wait watcher thread
 * (see RUNTIME.md, "Poll sets, trywait and wait channels"), never by the data path: a completion costs nothing more.
 * <p>
 * Threading: {@link #channel()} and {@link #close()} are thread-safe; arming and draining happen in
 * {@code trywait}, one waiter per channel at a time.
 */
public final class WaitChannel implements AutoCloseable
{
    private final Pipe pipe;
    private final BooleanSupplier readiness;
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Written by the watcher thread only. */
    private final ByteBuffer signalByte = ByteBuffer.allocateDirect(1);
    /** Read by the waiter (trywait) only. */
    private final ByteBuffer drainBuffer = ByteBuffer.allocateDirect(64);

    private WaitChannel(final BooleanSupplier readiness)
    {
        this.readiness = readiness;
        try
        {
            pipe = Pipe.open();
            pipe.source().configureBlocking(false);
            pipe.sink().configureBlocking(false);
        }
        catch (final IOException ex)
        {
            throw new FabricException(Errno.EIO, "cannot open the wait channel's pipe", ex);
        }
    }

    static WaitChannel open(final BooleanSupplier readiness)
    {
        final WaitChannel channel = new WaitChannel(readiness);
        WaitWatcher.INSTANCE.register(channel);
        return channel;
    }

    /**
     * The selectable channel (non-blocking): readable once an armed object became ready.
     *
     * @return the source end of the channel's pipe.
     */
    public Pipe.SourceChannel channel()
    {
        return pipe.source();
    }

    /**
     * @return true until {@link #close()}.
     */
    public boolean isOpen()
    {
        return !closed.get();
    }

    /**
     * Close the channel (the object it watches stays open; asking the object again gives a new channel).
     */
    @Override
    public void close()
    {
        if (closed.compareAndSet(false, true))
        {
            armed.set(false);
            WaitWatcher.INSTANCE.unregister(this);
            try
            {
                pipe.sink().close();
                pipe.source().close();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
    }

    /**
     * Whether the watched object has something to read now (may drive its domain's manual progress).
     */
    boolean ready()
    {
        return readiness.getAsBoolean();
    }

    boolean armed()
    {
        return armed.get();
    }

    /**
     * Arm: the next time the watcher sees the object ready it writes one byte. Volatile write, then the caller
     * checks readiness (volatile reads): an event published before the arm is seen by that check, one published
     * after it by the watcher.
     */
    void arm()
    {
        if (!closed.get())
        {
            armed.set(true);
            WaitWatcher.INSTANCE.armed();
        }
    }

    void disarm()
    {
        armed.set(false);
    }

    /**
     * Watcher thread: signal once if armed (coalesced: the arm is taken by the first signal).
     */
    void fire()
    {
        if (armed.compareAndSet(true, false) && !closed.get())
        {
            try
            {
                signalByte.clear();
                pipe.sink().write(signalByte);
            }
            catch (final IOException ex)
            {
                // Closed concurrently: nobody waits on it any more.
                armed.set(false);
            }
        }
    }

    /**
     * Waiter: take every pending signal byte, so that the next select blocks until a new signal.
     */
    void drain()
    {
        if (closed.get())
        {
            return;
        }
        try
        {
            int n;
            do
            {
                drainBuffer.clear();
                n = pipe.source().read(drainBuffer);
            }
            while (n > 0);
        }
        catch (final IOException ex)
        {
            // Closed concurrently: nothing to drain.
            armed.set(false);
        }
    }
}
