package io.jfabric.provider.aeron;

import io.aeron.driver.DataPacketDispatcher;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.media.ReceiveChannelEndpoint;
import io.aeron.driver.media.SendChannelEndpoint;
import io.aeron.driver.media.UdpChannel;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.nio.TransportPoller;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * netem's {@code delay 5ms 2ms} (and {@code loss}) in one media driver, without a qdisc: every UDP endpoint the
 * driver opens reads through a {@link DelayLine}. Receive endpoints (supplied through the driver's
 * {@code ReceiveChannelEndpointSupplier}) hold data frames, heartbeats, setup and RTT frames; send endpoints
 * ({@code SendChannelEndpointSupplier}) hold what comes back to a publication: status messages, NAKs, RTT replies.
 * So both directions of every path through this driver are delayed, as netem on both ends of a link would.
 * <p>
 * What it is not: the delay is applied where the driver reads its socket, after the kernel took the datagram, so
 * the socket buffer and the kernel's queues see the traffic undelayed (a netem queue holds it on the link), and a
 * held datagram is handed on at the driver's next poll of that endpoint (its duty cycle, at most its idle park
 * late). The driver polls every endpoint on each duty cycle only while it has at most Agrona's transport iteration
 * threshold of them ({@link TransportPoller#ITERATION_THRESHOLD}, 5 by default); beyond it, it polls only the
 * sockets with something to read, and a held datagram would wait for the next arrival on its socket. Tests check
 * {@link #mostEndpoints()} against that threshold.
 * <p>
 * {@link #partition} cuts this driver off from every other one (all on loopback): while set, its endpoints drop
 * each datagram whose source port is not one of this driver's own sockets (what comes to its receivers, what comes
 * back to its publications, or both), while the driver's traffic with itself (a domain's publications to itself)
 * goes on. With zero delay and loss the line only passes
 * datagrams on.
 * <p>
 * Threading: the endpoints run on the driver's threads; the counters are read by any thread.
 */
final class DelayedLinks
{
    private final double delayMs;
    private final double jitterMs;
    private final double loss;
    private final List<DelayLine> lines = new CopyOnWriteArrayList<>();
    private final AtomicInteger seeds = new AtomicInteger();
    private final AtomicInteger openReceive = new AtomicInteger();
    private final AtomicInteger openSend = new AtomicInteger();
    private final AtomicInteger most = new AtomicInteger();
    private final Set<Integer> ownPorts = ConcurrentHashMap.newKeySet();
    private final AtomicLong cut = new AtomicLong();
    private volatile boolean dataCut;
    private volatile boolean controlCut;

    /**
     * @param delayMs  mean delay, milliseconds.
     * @param jitterMs jitter (uniform, plus or minus), milliseconds.
     * @param loss     probability of dropping a datagram.
     */
    DelayedLinks(final double delayMs, final double jitterMs, final double loss)
    {
        this.delayMs = delayMs;
        this.jitterMs = jitterMs;
        this.loss = loss;
    }

    /**
     * Make a driver context's UDP endpoints delaying ones.
     *
     * @param context the driver's context, before launch.
     * @return the context.
     */
    MediaDriver.Context install(final MediaDriver.Context context)
    {
        return context
            .receiveChannelEndpointSupplier(DelayingReceiveEndpoint::new)
            .sendChannelEndpointSupplier(DelayingSendEndpoint::new);
    }

    private DelayLine newLine()
    {
        final DelayLine line = new DelayLine(delayMs, jitterMs, loss, 0x5EED_0000L + seeds.incrementAndGet());
        lines.add(line);
        return line;
    }

    private void opened(final AtomicInteger open)
    {
        final int now = open.incrementAndGet();
        most.accumulateAndGet(now, Math::max);
    }

    /**
     * Cut this driver off from the others, or join it again.
     *
     * @param on true to drop every datagram from another driver.
     */
    void partition(final boolean on)
    {
        partition(on, on);
    }

    /**
     * Cut what reaches this driver from the others, by kind, or join it again.
     *
     * @param data    true to drop what other drivers' publications send (data, setup, heartbeats).
     * @param control true to drop what other drivers' receivers send back (status messages, NAKs).
     */
    void partition(final boolean data, final boolean control)
    {
        dataCut = data;
        controlCut = control;
    }

    /**
     * @return datagrams from other drivers dropped by {@link #partition}.
     */
    long cut()
    {
        return cut.get();
    }

    private void own(final DatagramChannel channel)
    {
        try
        {
            final SocketAddress local = null == channel ? null : channel.getLocalAddress();
            if (local instanceof InetSocketAddress)
            {
                ownPorts.add(((InetSocketAddress) local).getPort());
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private InetSocketAddress admit(final InetSocketAddress source, final boolean cutOff)
    {
        if (null != source && cutOff && !ownPorts.contains(source.getPort()))
        {
            cut.incrementAndGet();
            return null;
        }
        return source;
    }

    /**
     * @return datagrams delayed so far, all endpoints.
     */
    long held()
    {
        long sum = 0;
        for (final DelayLine line : lines)
        {
            sum += line.held();
        }
        return sum;
    }

    /**
     * @return datagrams dropped so far, all endpoints.
     */
    long dropped()
    {
        long sum = 0;
        for (final DelayLine line : lines)
        {
            sum += line.dropped();
        }
        return sum;
    }

    /**
     * @return datagrams handed on after one that arrived later, all endpoints.
     */
    long overtaken()
    {
        long sum = 0;
        for (final DelayLine line : lines)
        {
            sum += line.overtaken();
        }
        return sum;
    }

    /**
     * @return the most receive or send endpoints that were open at once (each kind has its own poller).
     */
    int mostEndpoints()
    {
        return most.get();
    }

    @Override
    public String toString()
    {
        return "delay " + delayMs + " ms +- " + jitterMs + " ms, loss " + loss + ": " + held() +
            " datagrams delayed, " + overtaken() + " overtaken, " + dropped() + " dropped, " + mostEndpoints() +
            " endpoints per poller at most";
    }

    private final class DelayingReceiveEndpoint extends ReceiveChannelEndpoint
    {
        private final DelayLine line = newLine();
        private boolean closed;

        DelayingReceiveEndpoint(
            final UdpChannel channel,
            final DataPacketDispatcher dispatcher,
            final AtomicCounter status,
            final MediaDriver.Context context)
        {
            super(channel, dispatcher, status, context);
            opened(openReceive);
        }

        @Override
        public void openChannel()
        {
            super.openChannel();
            own(receiveDatagramChannel);
        }

        @Override
        public InetSocketAddress receive(final ByteBuffer buffer)
        {
            final InetSocketAddress source = line.hasRoom() ? admit(super.receive(buffer), dataCut) : null;
            return line.pass(buffer, source, System.nanoTime());
        }

        @Override
        public void close()
        {
            if (!closed)
            {
                closed = true;
                openReceive.decrementAndGet();
            }
            super.close();
        }
    }

    private final class DelayingSendEndpoint extends SendChannelEndpoint
    {
        private final DelayLine line = newLine();
        private boolean closed;

        DelayingSendEndpoint(final UdpChannel channel, final AtomicCounter status, final MediaDriver.Context context)
        {
            super(channel, status, context);
            opened(openSend);
        }

        @Override
        public void openChannel()
        {
            super.openChannel();
            own(sendDatagramChannel);
            own(receiveDatagramChannel);
        }

        @Override
        public InetSocketAddress receive(final ByteBuffer buffer)
        {
            final InetSocketAddress source = line.hasRoom() ? admit(super.receive(buffer), controlCut) : null;
            return line.pass(buffer, source, System.nanoTime());
        }

        @Override
        public void close()
        {
            if (!closed)
            {
                closed = true;
                openSend.decrementAndGet();
            }
            super.close();
        }
    }
}
