package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A child JVM of {@link ShmRingCutTest}: opens the domain named by its first argument, waits for the peer named by
 * its second, then hammers it in both directions (tagged sends of 4 KiB and 64 KiB, 1 MiB sends from a shared pool
 * block, RMA writes of 64 KiB and reads of 4 KiB into the peer's region) until an error is reported to it (an error
 * completion, a post refused with an errno other than EAGAIN, or an {@code InternalError} thrown out of a fabric
 * call), then keeps going a little, closes everything and prints one {@code RESULT} line. Exit code 0 unless
 * something unexpected was thrown. Prints {@code READY}, {@code RUNNING} (first completion) and {@code RESULT}.
 */
public final class ShmCutChild
{
    private static final int BIG = 1 << 20;
    private static final int REGION = 4 << 20;
    private static final long KEY = 9;
    private static final int RECEIVES = 8;
    private static final int WINDOW = 24;
    private static final long RECV_CONTEXT = 1L << 40;
    /** How long a peer that was READY may stay unavailable to the AV insert before its ring is taken as cut. */
    private static final long INSERT_DEADLINE_NS = 10_000_000_000L;

    private ShmCutChild()
    {
    }

    /**
     * Entry point.
     *
     * @param args own name, peer name, progress mode, hammer milliseconds at most.
     * @throws Exception on a broken stdin.
     */
    public static void main(final String[] args) throws Exception
    {
        try
        {
            run(args);
        }
        catch (final InternalError ex)
        {
            // The JVM's asynchronous InternalError for a fault in a cut file may surface anywhere in this thread's
            // code after the access (measured: at a loop's back edge between two guarded blocks), not only inside a
            // fabric call: it is still the error reported to this application (SHM.md "Limits", item 1). The JVM
            // did not abort; the process exits normally with that as its result.
            System.out.println("RESULT errors=1 errno=none internal=1 posted=? completed=? ms=? first=InternalError" +
                " outside a guarded block: " + ex.getMessage());
            System.out.flush();
            System.exit(0);
        }
    }

    private static void run(final String[] args) throws Exception
    {
        final Info info = ShmTests.info(Progress.valueOf(args[2]), args[0]);
        final long hammerMs = Long.parseLong(args[3]);
        final Fabric fabric = Fabric.open(info);
        final Domain domain = fabric.domain(info, "yield");
        final AddressVector av = domain.addressVector(AvType.TABLE, 4);
        final CompletionQueue cq = domain.completionQueue(4096, CqFormat.TAGGED);
        final Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
        final UnsafeBuffer region = ShmTests.direct(REGION);
        final MemoryRegion mr = domain.registerMemory(
            region, 0, REGION, Flags.REMOTE_READ | Flags.REMOTE_WRITE, KEY);
        final AtomicBuffer shared = domain.allocateShared(BIG);
        final UnsafeBuffer pooled = new UnsafeBuffer(shared.addressOffset(), BIG);
        ShmTests.fill(pooled, 0, BIG, 3);
        final UnsafeBuffer small = ShmTests.pattern(64 << 10, 5);
        final UnsafeBuffer[] in = new UnsafeBuffer[RECEIVES];
        for (int i = 0; i < RECEIVES; i++)
        {
            in[i] = ShmTests.direct(BIG);
        }
        final UnsafeBuffer readBack = ShmTests.direct(4096);
        System.out.println("READY");
        System.out.flush();
        final BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        if (!"go".equals(stdin.readLine()))
        {
            System.exit(3);
        }
        int errors = 0;
        int internal = 0;
        int firstErrno = 0;
        String firstWhat = "none";
        // A cut that lands before or during the AV insert is reported there: EIO (own ring or the lane cut under
        // the sender-slot claim, a FabricException) or a peer that never becomes available (its ring file cut).
        // Both are correct outcomes; the child then skips the hammering and closes.
        long peer = AddressVector.ADDR_NOTAVAIL;
        try
        {
            peer = insertPeer(av, args[1], domain);
        }
        catch (final FabricException ex)
        {
            errors++;
            firstErrno = ex.errno().negated();
            firstWhat = "av.insert: " + ex.getMessage();
        }
        catch (final InternalError ex)
        {
            internal++;
            errors++;
            firstWhat = "InternalError at insert: " + ex.getMessage();
        }
        if (AddressVector.ADDR_NOTAVAIL == peer && 0 == errors)
        {
            errors++;
            firstWhat = "av.insert: peer " + args[1] + " not available (its ring cut)";
        }
        long completed = 0;
        long posted = 0;
        int outstanding = 0;
        boolean running = false;
        final CompletionEntry entry = new CompletionEntry();
        final CompletionErrorEntry error = new CompletionErrorEntry();
        final long start = System.nanoTime();
        long stopAt = start + hammerMs * 1_000_000L;
        int nextReceive = 0;
        int kind = 0;
        try
        {
            for (int i = 0; i < RECEIVES; i++)
            {
                final int rc = ep.trecv(in[i], 0, BIG, AddressVector.ADDR_UNSPEC, 0, -1L, RECV_CONTEXT + i);
                if (rc < 0)
                {
                    errors++;
                    firstErrno = rc;
                    firstWhat = "trecv";
                }
            }
        }
        catch (final InternalError ex)
        {
            internal++;
            errors++;
            firstWhat = "InternalError at start: " + ex.getMessage();
        }
        boolean hammering = AddressVector.ADDR_NOTAVAIL != peer;
        while (hammering)
        {
            try
            {
                // Inside the try: the JVM throws its asynchronous InternalError at a later point than the access,
                // which can be this application code rather than a fabric call.
                if (System.nanoTime() - stopAt >= 0)
                {
                    hammering = false;
                    continue;
                }
                if (outstanding < WINDOW)
                {
                    final int rc;
                    switch (kind % 5)
                    {
                        case 0:
                            rc = ep.tsend(small, 0, 4096, peer, 1, kind);
                            break;
                        case 1:
                            rc = ep.tsend(small, 0, 64 << 10, peer, 2, kind);
                            break;
                        case 2:
                            rc = ep.tsend(pooled, 0, BIG, peer, 3, kind);
                            break;
                        case 3:
                            rc = ep.write(small, 0, 64 << 10, peer, (kind & 31) * 65536L, KEY, kind);
                            break;
                        default:
                            rc = ep.read(readBack, 0, 4096, peer, 8192, KEY, kind);
                            break;
                    }
                    if (0 == rc)
                    {
                        outstanding++;
                        posted++;
                        kind++;
                    }
                    else if (rc != Errno.EAGAIN.negated())
                    {
                        if (0 == errors)
                        {
                            firstErrno = rc;
                            firstWhat = "post of kind " + (kind % 5);
                            stopAt = System.nanoTime() + 300_000_000L;
                        }
                        errors++;
                        kind++;
                    }
                }
                final int n = cq.read(entry);
                if (1 == n)
                {
                    completed++;
                    if (!running)
                    {
                        running = true;
                        System.out.println("RUNNING");
                        System.out.flush();
                    }
                    final long context = entry.context();
                    if (context >= RECV_CONTEXT)
                    {
                        final int r = (int) (context - RECV_CONTEXT);
                        ep.trecv(in[r], 0, BIG, AddressVector.ADDR_UNSPEC, 0, -1L, context);
                    }
                    else
                    {
                        outstanding--;
                    }
                }
                else if (n == Errno.EAVAIL.negated())
                {
                    cq.readErr(error);
                    if (error.context() < RECV_CONTEXT)
                    {
                        outstanding--;
                    }
                    if (0 == errors)
                    {
                        firstErrno = error.errno().negated();
                        firstWhat = "error completion";
                        stopAt = System.nanoTime() + 300_000_000L;
                    }
                    errors++;
                }
                else if (n != Errno.EAGAIN.negated())
                {
                    if (0 == errors)
                    {
                        firstErrno = n;
                        firstWhat = "cq.read";
                        stopAt = System.nanoTime() + 300_000_000L;
                    }
                    errors++;
                }
                else
                {
                    domain.progress();
                }
            }
            catch (final InternalError ex)
            {
                // The JVM's asynchronous answer to a fault in a mapped file, thrown out of a fabric call or out of
                // this loop's own code.
                if (0 == errors)
                {
                    firstWhat = "InternalError: " + ex.getMessage();
                    stopAt = System.nanoTime() + 300_000_000L;
                }
                internal++;
                errors++;
            }
        }
        try
        {
            domain.freeShared(shared);
            mr.close();
            ep.close();
            cq.close();
            av.close();
            domain.close();
            fabric.close();
        }
        catch (final InternalError ex)
        {
            internal++;
            System.out.println("CLOSE InternalError " + ex.getMessage());
        }
        System.out.println("RESULT errors=" + errors + " errno=" + Errno.strerror(firstErrno) + " internal=" +
            internal + " posted=" + posted + " completed=" + completed + " ms=" +
            (System.nanoTime() - start) / 1_000_000 + " first=" + firstWhat);
        System.out.flush();
        System.exit(0);
    }

    private static long insertPeer(final AddressVector av, final String name, final Domain domain)
    {
        final long deadline = System.nanoTime() + INSERT_DEADLINE_NS;
        while (true)
        {
            final long handle = av.insert(("fi_shm://" + name).getBytes(StandardCharsets.US_ASCII));
            if (AddressVector.ADDR_NOTAVAIL != handle)
            {
                return handle;
            }
            if (System.nanoTime() - deadline > 0)
            {
                // The peer printed READY (its ring file was whole) before this child was told to go: a name that
                // stays unavailable this long had its ring file cut.
                return AddressVector.ADDR_NOTAVAIL;
            }
            domain.progress();
            Thread.yield();
        }
    }
}
