package io.jfabric.bench.runtime;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Message rate of 8-byte {@code fi_tinject} over the shm provider: two domains in this JVM (two ring files), a
 * sender thread that tinjects 8 B tagged messages from domain A to domain B as fast as the rings take them, and the
 * receiving thread (main) that keeps a window of tagged receives posted at B, reads completions in batches and
 * re-posts each receive it completes. With MANUAL progress each thread runs its own domain's agent: the sender calls
 * {@code domain.progress()} when its command ring is full (-EAGAIN) and every {@code 64} posts, the receiver through
 * {@code cq.read}. With AUTO each domain has its agent thread (idle strategy {@code backoff}).
 * <p>
 * Prints the received rate once per second (like Aeron's {@code ImageRateReporter}), then the median of the
 * measured seconds (the warm-up seconds are not counted) as {@code jfabric-shm-tinject-8B median <msgs/s>}.
 * <p>
 * Usage: {@code ShmTinjectRate [MANUAL|AUTO] [seconds] [warmupSeconds] [window]} (defaults MANUAL 10 3 512).
 * Needs {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED} like the other runtime harnesses.
 */
public final class ShmTinjectRate
{
    private static final int SIZE = 8;
    private static final long TAG = 0x7A;
    private static final int BATCH = 64;

    private ShmTinjectRate()
    {
    }

    /**
     * Run the measurement.
     *
     * @param args progress, seconds, warm-up seconds, receive window.
     * @throws InterruptedException if interrupted while joining the sender.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final Progress progress = Progress.valueOf(args.length > 0 ? args[0] : "MANUAL");
        final int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        final int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        final int window = args.length > 3 ? Integer.parseInt(args[3]) : 512;

        final Info hints = Info.builder()
            .caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName("shm").build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build();
        final Info info = Fabric.getInfo(hints).get(0);
        try (Fabric fabric = Fabric.open(info);
            Domain domainA = fabric.domain(info, "backoff");
            Domain domainB = fabric.domain(info, "backoff");
            AddressVector avA = domainA.addressVector(AvType.TABLE, 1);
            AddressVector avB = domainB.addressVector(AvType.TABLE, 1);
            CompletionQueue cqA = domainA.completionQueue(64, CqFormat.TAGGED);
            CompletionQueue cqB = domainB.completionQueue(Math.max(1024, 2 * window), CqFormat.TAGGED);
            Endpoint a = domainA.endpoint(info).bind(avA, 0)
                .bind(cqA, Flags.TRANSMIT | Flags.RECV | Flags.SELECTIVE_COMPLETION).enable();
            Endpoint b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final long dest = avA.insert(b.name());
            avB.insert(a.name());
            final UnsafeBuffer rx = new UnsafeBuffer(ByteBuffer.allocateDirect(window * SIZE));
            for (int slot = 0; slot < window; slot++)
            {
                post(b, rx, slot);
            }

            final AtomicBoolean running = new AtomicBoolean(true);
            final AtomicLong sent = new AtomicLong();
            final Thread sender = new Thread(() -> send(a, domainA, dest, running, sent), "tinject-sender");
            sender.start();

            final CompletionEntry[] entries = new CompletionEntry[BATCH];
            for (int i = 0; i < BATCH; i++)
            {
                entries[i] = new CompletionEntry();
            }
            final IdleStrategy idle = new BackoffIdleStrategy();
            final double[] rates = new double[seconds];
            long received = 0;
            long lastCount = 0;
            long lastTime = System.nanoTime();
            final long second = TimeUnit.SECONDS.toNanos(1);
            int reported = 0;
            System.out.printf("# shm tinject %d B, %s progress, window %d, %d s + %d s warm-up, load %s%n",
                SIZE, progress, window, seconds, warmup, loadAverage());
            while (reported < warmup + seconds && sender.isAlive())
            {
                final int n = cqB.read(entries, BATCH);
                if (n > 0)
                {
                    for (int i = 0; i < n; i++)
                    {
                        final int slot = (int) entries[i].context();
                        if (entries[i].len() != SIZE || entries[i].tag() != TAG)
                        {
                            throw new IllegalStateException("bad completion: len " + entries[i].len() + " tag " +
                                entries[i].tag());
                        }
                        post(b, rx, slot);
                    }
                    received += n;
                }
                else if (n != Errno.EAGAIN.negated())
                {
                    throw new IllegalStateException("cq.read returned " + n + " (" + Errno.strerror(n) + ")");
                }
                idle.idle(Math.max(n, 0));
                final long now = System.nanoTime();
                if (now - lastTime >= second)
                {
                    final double rate = (received - lastCount) * (double) second / (now - lastTime);
                    System.out.printf("%.3f M msgs/s%s%n", rate / 1e6, reported < warmup ? " (warm-up)" : "");
                    if (reported >= warmup)
                    {
                        rates[reported - warmup] = rate;
                    }
                    reported++;
                    lastCount = received;
                    lastTime = now;
                }
            }
            running.set(false);
            sender.join();
            final int measured = Math.max(0, reported - warmup);
            final double[] sorted = Arrays.copyOf(rates, measured);
            Arrays.sort(sorted);
            final double median = 0 == measured ? 0 : (measured % 2 == 1 ? sorted[measured / 2] :
                (sorted[measured / 2 - 1] + sorted[measured / 2]) / 2);
            System.out.printf("# sent %d, received %d, load %s%n", sent.get(), received, loadAverage());
            System.out.printf("jfabric-shm-tinject-8B median %.0f msgs/s%n", median);
        }
    }

    private static void post(final Endpoint b, final UnsafeBuffer rx, final int slot)
    {
        final int status = b.trecv(rx, slot * SIZE, SIZE, AddressVector.ADDR_UNSPEC, TAG, 0, slot);
        if (0 != status)
        {
            throw new IllegalStateException("trecv returned " + status + " (" + Errno.strerror(status) + ")");
        }
    }

    private static void send(
        final Endpoint a, final Domain domainA, final long dest, final AtomicBoolean running, final AtomicLong sent)
    {
        final UnsafeBuffer tx = new UnsafeBuffer(ByteBuffer.allocateDirect(SIZE));
        final IdleStrategy idle = new BackoffIdleStrategy();
        long count = 0;
        int sinceProgress = 0;
        while (running.get())
        {
            tx.putLong(0, count);
            final int status = a.tinject(tx, 0, SIZE, dest, TAG);
            if (0 == status)
            {
                count++;
                if (++sinceProgress == BATCH)
                {
                    sinceProgress = 0;
                    domainA.progress();
                }
            }
            else if (status == Errno.EAGAIN.negated())
            {
                sinceProgress = 0;
                idle.idle(domainA.progress());
            }
            else
            {
                throw new IllegalStateException("tinject returned " + status + " (" + Errno.strerror(status) + ")");
            }
        }
        sent.set(count);
    }

    private static String loadAverage()
    {
        final double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return String.format("%.2f", load);
    }
}
