package io.jfabric.provider.aeron;

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
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The child JVM of {@link AeronMultiProcessTest}: an aeron fabric with its own embedded media driver, one domain
 * (AUTO progress) with one endpoint, and a registered region of {@link #REGION_LENGTH} bytes holding the pattern
 * of seed {@link #REGION_SEED} (remote read and write, key {@link #REGION_KEY}). It prints
 * {@code READY <address>}, then takes {@code ECHO <address>} on stdin: from then on it sends every tagged message it
 * receives back to that address with the same tag and length, for ever (until it is killed or stdin closes).
 */
public final class AeronChild
{
    /** Largest message echoed. */
    static final int MAX_MESSAGE = (1 << 20) + 3;
    /** Bytes of the registered region. */
    static final int REGION_LENGTH = 1 << 20;
    /** Pattern seed of the registered region. */
    static final int REGION_SEED = 5;
    /** Key of the registered region. */
    static final long REGION_KEY = 77;

    private AeronChild()
    {
    }

    /**
     * @param args none.
     * @throws Exception on any failure (printed as {@code ERROR ...}).
     */
    public static void main(final String[] args) throws Exception
    {
        final Info hints = Info.builder().caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC)
            .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build()).build();
        final Info info = Fabric.getInfo(hints).get(0);
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 4);
            CompletionQueue cq = domain.completionQueue(1024, CqFormat.TAGGED))
        {
            final UnsafeBuffer region = new UnsafeBuffer(ByteBuffer.allocateDirect(REGION_LENGTH));
            for (int i = 0; i < REGION_LENGTH; i++)
            {
                region.putByte(i, (byte) (REGION_SEED + i * 31));
            }
            try (MemoryRegion mr = domain.registerMemory(region, 0, REGION_LENGTH,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, REGION_KEY))
            {
                final Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
                System.out.println("READY " + new String(ep.name(), StandardCharsets.US_ASCII));
                System.out.flush();
                final BufferedReader in =
                    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
                final String line = in.readLine();
                if (null == line || !line.startsWith("ECHO "))
                {
                    return;
                }
                final long parent = av.insert(line.substring("ECHO ".length()).getBytes(StandardCharsets.US_ASCII));
                System.out.println("ECHOING " + parent);
                System.out.flush();
                echo(ep, cq, parent);
                ep.close();
            }
        }
    }

    private static void echo(final Endpoint ep, final CompletionQueue cq, final long parent)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(MAX_MESSAGE));
        final CompletionEntry entry = new CompletionEntry();
        while (true)
        {
            check(ep.trecv(buffer, 0, MAX_MESSAGE, AddressVector.ADDR_UNSPEC, 0, ~0L, 1));
            await(cq, entry);
            final int length = (int) entry.len();
            check(ep.tsend(buffer, 0, length, parent, entry.tag(), 2));
            await(cq, entry);
        }
    }

    private static void await(final CompletionQueue cq, final CompletionEntry entry)
    {
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                return;
            }
            if (Errno.EAGAIN.negated() != n)
            {
                throw new IllegalStateException("cq.read " + n + " (" + Errno.strerror(n) + ")");
            }
            Thread.yield();
        }
    }

    private static void check(final int rc)
    {
        if (0 != rc)
        {
            throw new IllegalStateException("post " + rc + " (" + Errno.strerror(rc) + ")");
        }
    }
}
