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
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One thread drives both sides of a 64 B tagged ping-pong between two domains of one fabric (MANUAL progress), so
 * a round trip is the code path of both sides and no second thread waits: its p50 measures path length and stays
 * comparable between builds on a loaded machine (take the smallest p50 of several rounds). Uses only the public API
 * that every build since the first has, so {@code path-ab.sh} compiles it against any build's jar.
 * <p>
 * Usage: {@code PathHarness PROVIDER ROUND_TRIPS ROUNDS}; with {@code -Didle=1} it times empty CQ reads instead
 * (one duty cycle each: the cost of a waiting thread's round).
 */
public final class PathHarness
{
    private static final long TAG = 0x5050;
    private static final int SIZE = 64;

    private PathHarness()
    {
    }

    /**
     * Run it.
     *
     * @param args provider, round trips per round, rounds.
     */
    public static void main(final String[] args)
    {
        final String provider = args[0];
        final int n = Integer.parseInt(args[1]);
        final int rounds = Integer.parseInt(args[2]);
        final Info hints = Info.builder().caps(Flags.MSG | Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(provider).build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build()).build();
        final Info info = Fabric.getInfo(hints).get(0);
        final Fabric fabric = Fabric.open(info);
        final Domain da = fabric.domain(info, "backoff");
        final Domain db = fabric.domain(info, "backoff");
        final AddressVector ava = da.addressVector(AvType.TABLE, 4);
        final AddressVector avb = db.addressVector(AvType.TABLE, 4);
        final CompletionQueue cqa = da.completionQueue(64, CqFormat.TAGGED);
        final CompletionQueue cqb = db.completionQueue(64, CqFormat.TAGGED);
        final Endpoint a = da.endpoint(info).bind(ava, 0)
            .bind(cqa, Flags.TRANSMIT | Flags.SELECTIVE_COMPLETION).bind(cqa, Flags.RECV).enable();
        final Endpoint b = db.endpoint(info).bind(avb, 0)
            .bind(cqb, Flags.TRANSMIT | Flags.SELECTIVE_COMPLETION).bind(cqb, Flags.RECV).enable();
        final long toB = ava.insert(b.name());
        final long toA = avb.insert(a.name());
        final UnsafeBuffer txa = new UnsafeBuffer(ByteBuffer.allocateDirect(SIZE));
        final UnsafeBuffer txb = new UnsafeBuffer(ByteBuffer.allocateDirect(SIZE));
        final UnsafeBuffer rxa = new UnsafeBuffer(ByteBuffer.allocateDirect(SIZE));
        final UnsafeBuffer rxb = new UnsafeBuffer(ByteBuffer.allocateDirect(SIZE));
        final CompletionEntry e = new CompletionEntry();
        final long[] t = new long[n];
        for (int r = 0; r < rounds; r++)
        {
            if (null != System.getProperty("idle"))
            {
                final long start = System.nanoTime();
                for (int i = 0; i < n; i++)
                {
                    check(Errno.EAGAIN.negated() == cqa.read(e) ? 0 : -1);
                }
                System.out.println(provider + " idle round " + r + " ns/read " + (System.nanoTime() - start) / n);
                continue;
            }
            for (int i = 0; i < n; i++)
            {
                final long start = System.nanoTime();
                check(a.trecv(rxa, 0, SIZE, AddressVector.ADDR_UNSPEC, TAG, 0, 1));
                check(b.trecv(rxb, 0, SIZE, AddressVector.ADDR_UNSPEC, TAG, 0, 2));
                while (0 != a.tinject(txa, 0, SIZE, toB, TAG))
                {
                    da.progress();
                }
                await(cqb, da, e);
                while (0 != b.tinject(txb, 0, SIZE, toA, TAG))
                {
                    db.progress();
                }
                await(cqa, db, e);
                t[i] = System.nanoTime() - start;
            }
            Arrays.sort(t);
            long sum = 0;
            for (final long v : t)
            {
                sum += v;
            }
            System.out.println(provider + " round " + r + " p50 " + t[n / 2] + " p90 " + t[n * 9 / 10] + " mean " +
                (sum / n));
        }
        System.exit(0);
    }

    private static void await(final CompletionQueue cq, final Domain other, final CompletionEntry e)
    {
        while (true)
        {
            other.progress();
            final int rc = cq.read(e);
            if (1 == rc)
            {
                return;
            }
            check(Errno.EAGAIN.negated() == rc ? 0 : rc);
        }
    }

    private static void check(final int rc)
    {
        if (0 != rc)
        {
            throw new IllegalStateException("returned " + rc);
        }
    }
}
