package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * The child process of {@link GniShmMultiProcessTest}: one gni domain on the shm wire (its own emulated node),
 * prints its endpoint name, takes the parent's, receives a 64-byte and a 100 000-byte tagged message and sends each
 * back (the large one from its shared pool, {@code Domain.allocateShared}). Every wait is bounded; the parent kills
 * it at the end.
 */
public final class GniChild
{
    static final int SMALL = 64;
    static final int LARGE = 100_000;
    private static final long DEADLINE_NS = 60_000_000_000L;

    private GniChild()
    {
    }

    /**
     * @param args unused (the properties arrive with -D).
     * @throws Exception on failure (the parent sees the exit).
     */
    public static void main(final String[] args) throws Exception
    {
        final Info info = GniShmMultiProcessTest.info();
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 4);
            CompletionQueue cq = domain.completionQueue(64, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            System.out.println("NAME " + HexFormat.of().formatHex(ep.name()));
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            final String peer = in.readLine();
            final long parent = av.insert(HexFormat.of().parseHex(peer.substring(5)));
            final UnsafeBuffer small = new UnsafeBuffer(BufferUtil.allocateDirectAligned(SMALL, 64));
            // From the shared pool: the parent copies the echo straight out of it (GNI_XPMEM_ENABLE, on by default).
            final UnsafeBuffer large = new UnsafeBuffer(domain.allocateShared(LARGE));
            check(ep.trecv(small, 0, SMALL, AddressVector.ADDR_UNSPEC, 1, 0, 1));
            check(ep.trecv(large, 0, LARGE, AddressVector.ADDR_UNSPEC, 2, 0, 2));
            await(cq, domain);
            await(cq, domain);
            check(ep.tsend(small, 0, SMALL, parent, 3, 3));
            check(ep.tsend(large, 0, LARGE, parent, 4, 4));
            await(cq, domain);
            await(cq, domain);
            System.out.println("ECHOED");
            in.readLine();
        }
    }

    private static void check(final int rc)
    {
        if (0 != rc)
        {
            throw new IllegalStateException("post returned " + rc);
        }
    }

    private static void await(final CompletionQueue cq, final Domain domain)
    {
        final CompletionEntry entry = new CompletionEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                return;
            }
            if (Errno.EAGAIN.negated() != n || System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("cq.read " + n);
            }
            domain.progress();
            Thread.yield();
        }
    }
}
