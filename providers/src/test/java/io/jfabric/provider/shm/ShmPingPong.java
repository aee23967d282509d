package io.jfabric.provider.shm;

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
import io.jfabric.Version;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A two-process tagged ping-pong over shm with manual progress, both sides busy-polling their CQ; a measuring
 * tool, not a test (the CLI's {@code jfabric pingpong} is the user-facing one). Run the pong side first:
 * <pre>
 *   java -cp CP io.jfabric.provider.shm.ShmPingPong pong b a 64 200000 20000 &amp;
 *   java -cp CP io.jfabric.provider.shm.ShmPingPong ping a b 64 200000 20000
 * </pre>
 * The ping side prints the round-trip percentiles in nanoseconds. A seventh argument {@code pool} sends from a block
 * of the domain's shared pool ({@code Domain.allocateShared}: single-copy rendezvous) instead of a plain direct
 * buffer.
 */
public final class ShmPingPong
{
    private ShmPingPong()
    {
    }

    /**
     * Entry point.
     *
     * @param args role (ping|pong), own name, peer name, size, iterations, warm-up iterations, optionally "pool".
     * @throws InterruptedException never in practice.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final boolean ping = "ping".equals(args[0]);
        final int size = Integer.parseInt(args[3]);
        final int iterations = Integer.parseInt(args[4]);
        final int warmup = Integer.parseInt(args[5]);
        final Info hints = Info.builder().caps(Flags.MSG | Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(ShmProvider.NAME).build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build()).build();
        final Info info = Fabric.getInfo(Version.CURRENT, args[1], null, Flags.SOURCE, hints).get(0);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info);
            final AddressVector av = domain.addressVector(AvType.TABLE, 4);
            final CompletionQueue cq = domain.completionQueue(1024, CqFormat.TAGGED);
            final Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
            long peer = AddressVector.ADDR_NOTAVAIL;
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (AddressVector.ADDR_NOTAVAIL == peer)
            {
                peer = av.insert(("fi_shm://" + args[2]).getBytes(StandardCharsets.US_ASCII));
                if (AddressVector.ADDR_NOTAVAIL == peer)
                {
                    if (System.nanoTime() > deadline)
                    {
                        throw new IllegalStateException("peer " + args[2] + " never appeared");
                    }
                    Thread.sleep(10);
                }
            }
            final boolean pool = args.length > 6 && "pool".equals(args[6]);
            final UnsafeBuffer tx = pool ? new UnsafeBuffer(domain.allocateShared(Math.max(1, size)).addressOffset(),
                size) : new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, size)), 0, size);
            final UnsafeBuffer rx = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, size)), 0, size);
            final CompletionEntry entry = new CompletionEntry();
            final long[] rtt = new long[iterations];
            if (!ping)
            {
                check(ep.trecv(rx, 0, size, peer, 1, 0, 1));
            }
            for (int i = 0; i < warmup + iterations; i++)
            {
                if (ping)
                {
                    check(ep.trecv(rx, 0, size, peer, 1, 0, 1));
                    final long start = System.nanoTime();
                    check(ep.tsend(tx, 0, size, peer, 1, 2));
                    await(cq, entry, 2);
                    final long end = System.nanoTime();
                    if (i >= warmup)
                    {
                        rtt[i - warmup] = end - start;
                    }
                }
                else
                {
                    await(cq, entry, 1);
                    check(ep.trecv(rx, 0, size, peer, 1, 0, 1));
                    check(ep.tsend(tx, 0, size, peer, 1, 2));
                    await(cq, entry, 1);
                }
            }
            if (ping)
            {
                Arrays.sort(rtt);
                long sum = 0;
                for (final long r : rtt)
                {
                    sum += r;
                }
                System.out.printf("shm tagged ping-pong%s size=%d iterations=%d rtt_ns mean=%d p50=%d p90=%d p99=%d " +
                    "p99.9=%d max=%d%n", pool ? " (pool)" : "", size, iterations, sum / iterations, rtt[iterations / 2],
                    rtt[(int) (iterations * 0.9)], rtt[(int) (iterations * 0.99)], rtt[(int) (iterations * 0.999)],
                    rtt[iterations - 1]);
            }
            // The last answers (a rendezvous FIN) must leave before the domain closes.
            for (int i = 0; i < 10_000; i++)
            {
                domain.progress();
            }
            ep.close();
            cq.close();
            av.close();
            domain.close();
        }
    }

    /**
     * Busy-poll the CQ until {@code count} completions arrived (the ping waits for its send and its receive).
     */
    private static void await(final CompletionQueue cq, final CompletionEntry entry, final int count)
    {
        int got = 0;
        while (got < count)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                got++;
            }
            else if (n != Errno.EAGAIN.negated())
            {
                throw new IllegalStateException("cq.read " + Errno.strerror(n));
            }
        }
    }

    private static void check(final int rc)
    {
        if (0 != rc)
        {
            throw new IllegalStateException("post returned " + Errno.strerror(rc));
        }
    }
}
