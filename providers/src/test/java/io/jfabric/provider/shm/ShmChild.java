package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
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
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A child JVM of the multi-process shm tests: opens a domain named by its first argument (progress mode by its
 * second), an RDM endpoint with a TAGGED CQ, a table AV, remote read/write counters and a 4 MiB memory region
 * (key {@link #MR_KEY}, remote read and write), prints {@code READY <address>}, then executes one command per line
 * from stdin and answers each with one line on stdout. While idle it drives its domain (unless paused). Every wait
 * has a deadline; a failure answers {@code ERROR ...}.
 */
public final class ShmChild
{
    /** Key of the child's memory region. */
    static final long MR_KEY = 7;
    /** Bytes of the child's memory region. */
    static final int MR_LENGTH = 4 << 20;
    private static final long DEADLINE_NS = 30_000_000_000L;
    private static final int MAX_MESSAGE = (1 << 20) + 64;
    /** Exit code of a child whose domain could not be opened (it prints {@code FAILED <errno> <message>}). */
    static final int FAILED_EXIT_CODE = 2;
    /** Test-only system property of a child: the free bytes its file system emulation starts with. */
    static final String FREE_BYTES_PROP = "jfabric.test.shm.freeBytes";

    private final Fabric fabric;
    private final Domain domain;
    private final Endpoint ep;
    private final CompletionQueue cq;
    private final AddressVector av;
    private final Counter remoteWrites;
    private final Counter remoteReads;
    private final UnsafeBuffer region = ShmTests.direct(MR_LENGTH);
    private final MemoryRegion mr;
    private final IdleStrategy idle = new BackoffIdleStrategy(1, 10, 1000, 100_000);
    private final CompletionEntry entry = new CompletionEntry();
    private final CompletionErrorEntry error = new CompletionErrorEntry();
    private boolean paused;
    /** Keeps the buffer of a posted send alive until the process ends. */
    private UnsafeBuffer pinned;
    /** A pool block kept (not freed) after its send, for tests that look at it afterwards. */
    private org.agrona.concurrent.AtomicBuffer pinnedShared;
    /** A peer's ring holding a claim this process never commits (kept mapped until the process dies). */
    private ShmLaneFile halfClaimed;

    private ShmChild(final String name, final Progress progress)
    {
        final Info info = ShmTests.info(progress, name);
        fabric = Fabric.open(info);
        domain = fabric.domain(info, "yield");
        av = domain.addressVector(AvType.TABLE, 16);
        cq = domain.completionQueue(8192, CqFormat.TAGGED);
        remoteWrites = domain.counter();
        remoteReads = domain.counter();
        ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV)
            .bind(remoteWrites, Flags.REMOTE_WRITE).bind(remoteReads, Flags.REMOTE_READ).enable();
        mr = domain.registerMemory(region, 0, MR_LENGTH, Flags.REMOTE_READ | Flags.REMOTE_WRITE, MR_KEY);
    }

    /**
     * Entry point.
     *
     * @param args name and progress mode (MANUAL or AUTO).
     * @throws Exception on a broken stdin.
     */
    public static void main(final String[] args) throws Exception
    {
        // A full file system emulated where a test cannot mount a small tmpfs (ShmSmallFileSystem).
        final String freeBytes = System.getProperty(FREE_BYTES_PROP);
        if (null != freeBytes)
        {
            ShmFiles.TEST_FREE_BYTES.set(Long.parseLong(freeBytes));
        }
        final ShmChild child;
        try
        {
            child = new ShmChild(args[0], Progress.valueOf(args[1]));
        }
        catch (final FabricException ex)
        {
            // An orderly failure (no crash): the test reads the reason and the exit code.
            System.out.println("FAILED " + ex.errno() + " " + ex.getMessage());
            System.out.flush();
            System.exit(FAILED_EXIT_CODE);
            return;
        }
        final LinkedBlockingQueue<String> commands = new LinkedBlockingQueue<>();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII)))
            {
                String line;
                while (null != (line = in.readLine()))
                {
                    commands.add(line);
                }
            }
            catch (final Exception ignore)
            {
                // the parent went away
            }
            commands.add("exit");
        }, "stdin");
        reader.setDaemon(true);
        reader.start();
        System.out.println("READY " + new String(child.ep.name(), StandardCharsets.US_ASCII));
        System.out.flush();
        while (true)
        {
            final String line = commands.poll();
            if (null == line)
            {
                if (!child.paused)
                {
                    child.domain.progress();
                }
                child.idle.idle();
                continue;
            }
            child.idle.reset();
            String reply;
            try
            {
                reply = child.execute(line.trim().split(" "));
            }
            catch (final Throwable ex)
            {
                ex.printStackTrace();
                reply = "ERROR " + ex;
            }
            System.out.println(reply);
            System.out.flush();
            if ("BYE".equals(reply))
            {
                System.exit(0);
            }
        }
    }

    private String execute(final String[] cmd)
    {
        switch (cmd[0])
        {
            case "insert":
            {
                final long handle = av.insert(cmd[1].getBytes(StandardCharsets.US_ASCII));
                return AddressVector.ADDR_NOTAVAIL == handle ? "NOTAVAIL" : "FIADDR " + handle;
            }
            case "echo":
                return echo(Integer.parseInt(cmd[1]));
            case "crc":
                return "CRC " + ShmTests.crc(region, Integer.parseInt(cmd[1]), Integer.parseInt(cmd[2]));
            case "fill":
                ShmTests.fill(region, Integer.parseInt(cmd[1]), Integer.parseInt(cmd[2]), Integer.parseInt(cmd[3]));
                return "FILLED";
            case "counters":
                return "COUNTERS " + remoteWrites.read() + " " + remoteReads.read();
            case "pause":
                paused = true;
                return "PAUSED";
            case "resume":
                paused = false;
                return "RESUMED";
            case "postsend":
            {
                final int size = Integer.parseInt(cmd[2]);
                final UnsafeBuffer out = ShmTests.pattern(size, Integer.parseInt(cmd[4]));
                final int rc = ep.tsend(out, 0, size, Long.parseLong(cmd[1]), Long.parseLong(cmd[3]), 1);
                // The request leaves on the next duty cycles: make sure it did before answering.
                for (int i = 0; i < 20; i++)
                {
                    domain.progress();
                }
                pinned = out;
                return 0 == rc ? "POSTED" : "ERROR post " + Errno.strerror(rc);
            }
            case "ownbroken":
                return "OWNBROKEN " + transport().ownBroken();
            case "halfclaim":
                return halfClaim(cmd[1], Integer.parseInt(cmd[2]));
            case "peerstate":
                return "PEERSTATE " + transport().peerState(cmd[1]);
            case "expecterror":
                return expectError();
            case "sendone":
                return sendOne(Long.parseLong(cmd[1]), Integer.parseInt(cmd[2]), Long.parseLong(cmd[3]));
            case "sendseq":
                return sendSequence(Long.parseLong(cmd[1]), Integer.parseInt(cmd[2]), Integer.parseInt(cmd[3]));
            case "alltoall":
                return allToAll(Integer.parseInt(cmd[1]), Integer.parseInt(cmd[2]), cmd[3].split(","));
            case "poolsend":
                return poolSend(Long.parseLong(cmd[1]), Integer.parseInt(cmd[2]), Long.parseLong(cmd[3]),
                    Integer.parseInt(cmd[4]), cmd.length > 5 && "keep".equals(cmd[5]));
            case "exchange":
                return exchange(Long.parseLong(cmd[1]), Integer.parseInt(cmd[2]), Integer.parseInt(cmd[3]));
            case "allocshared":
                try
                {
                    pinnedShared = domain.allocateShared(Integer.parseInt(cmd[1]));
                    return "ALLOCATED";
                }
                catch (final FabricException ex)
                {
                    return "REFUSED " + ex.errno() + " " + ex.getMessage();
                }
            case "avsend":
                return sharedAvSend(cmd[1], Long.parseLong(cmd[2]), Integer.parseInt(cmd[3]), Long.parseLong(cmd[4]));
            case "recvcrc":
                return receiveCrc(Integer.parseInt(cmd[1]), Long.parseLong(cmd[2]));
            case "quit":
                // Ends the process without closing anything (no further duty cycle), as an abrupt exit would.
                return "BYE";
            case "flood":
                return flood(Long.parseLong(cmd[1]), Integer.parseInt(cmd[2]), Long.parseLong(cmd[3]));
            case "rma":
                return rma(Long.parseLong(cmd[1]), Long.parseLong(cmd[2]), Long.parseLong(cmd[3]),
                    Long.parseLong(cmd[4]));
            case "exit":
                mr.close();
                ep.close();
                cq.close();
                remoteWrites.close();
                remoteReads.close();
                av.close();
                domain.close();
                fabric.close();
                return "BYE";
            default:
                return "ERROR unknown command " + cmd[0];
        }
    }

    /**
     * Receive {@code count} messages (tagged or not, any tag, any source) and send each back to its source with
     * the same kind, tag and bytes.
     */
    private String echo(final int count)
    {
        final UnsafeBuffer taggedIn = ShmTests.direct(MAX_MESSAGE);
        final UnsafeBuffer plainIn = ShmTests.direct(MAX_MESSAGE);
        final CompletionEntry[] entries = {new CompletionEntry()};
        final long[] sources = new long[1];
        check(ep.trecv(taggedIn, 0, MAX_MESSAGE, AddressVector.ADDR_UNSPEC, 0, -1L, 1), "trecv");
        check(ep.recv(plainIn, 0, MAX_MESSAGE, AddressVector.ADDR_UNSPEC, 2), "recv");
        for (int i = 0; i < count; i++)
        {
            final long deadline = System.nanoTime() + DEADLINE_NS;
            int n;
            while ((n = cq.readFrom(entries, sources, 1)) == Errno.EAGAIN.negated())
            {
                if (System.nanoTime() - deadline > 0)
                {
                    return "ERROR echo timed out after " + i;
                }
                idle.idle();
            }
            idle.reset();
            if (1 != n)
            {
                return "ERROR echo read " + n + " " + describeError();
            }
            final CompletionEntry e = entries[0];
            final boolean tagged = (e.flags() & Flags.TAGGED) != 0;
            final int length = (int) e.len();
            final long src = sources[0];
            final long tag = e.tag();
            final int rc = tagged ? sendRetrying(taggedIn, length, src, tag, true) :
                sendRetrying(plainIn, length, src, 0, false);
            if (0 != rc)
            {
                return "ERROR echo send " + Errno.strerror(rc);
            }
            final String sent = awaitContext(3);
            if (null != sent)
            {
                return sent;
            }
            if (tagged)
            {
                check(ep.trecv(taggedIn, 0, MAX_MESSAGE, AddressVector.ADDR_UNSPEC, 0, -1L, 1), "trecv");
            }
            else
            {
                check(ep.recv(plainIn, 0, MAX_MESSAGE, AddressVector.ADDR_UNSPEC, 2), "recv");
            }
        }
        check(ep.cancel(1), "cancel");
        check(ep.cancel(2), "cancel");
        for (int i = 0; i < 2; i++)
        {
            final String cancelled = awaitError(Errno.ECANCELED);
            if (null != cancelled)
            {
                return cancelled;
            }
        }
        return "ECHOED " + count;
    }

    private int sendRetrying(
        final UnsafeBuffer buffer, final int length, final long dest, final long tag, final boolean tagged)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int rc = tagged ? ep.tsend(buffer, 0, length, dest, tag, 3) : ep.send(buffer, 0, length, dest, 3);
            if (rc != Errno.EAGAIN.negated() || System.nanoTime() - deadline > 0)
            {
                return rc;
            }
            domain.progress();
        }
    }

    /**
     * Send {@code count} tagged messages to {@code dest}: message i has tag i, size {@code ShmTests.SIZES[i % 8]}
     * (1 MiB + 3 left out) and the pattern seeded with i; wait for all completions.
     */
    private String sendSequence(final long dest, final int count, final int seed)
    {
        // Every buffer stays referenced until its send completes.
        final UnsafeBuffer[] buffers = new UnsafeBuffer[count];
        int completed = 0;
        final long deadline = System.nanoTime() + DEADLINE_NS;
        for (int i = 0; i < count; i++)
        {
            final int size = ShmTests.SIZES[i % 8];
            final UnsafeBuffer out = ShmTests.pattern(size, seed + i);
            buffers[i] = out;
            int rc;
            while ((rc = ep.tsend(out, 0, size, dest, i, 10_000 + i)) == Errno.EAGAIN.negated())
            {
                completed += drainSends();
                if (System.nanoTime() - deadline > 0)
                {
                    return "ERROR sendseq stuck at " + i;
                }
            }
            if (0 != rc)
            {
                return "ERROR sendseq post " + Errno.strerror(rc);
            }
        }
        while (completed < count)
        {
            final int n = drainSends();
            if (n < 0)
            {
                return "ERROR sendseq " + describeError();
            }
            completed += n;
            if (System.nanoTime() - deadline > 0)
            {
                return "ERROR sendseq completed only " + completed;
            }
        }
        return "SENT " + completed + " " + buffers.length;
    }

    /**
     * tinject {@code count} 16-byte messages tagged {@code tagBase + i} (payload: the tag, then its complement),
     * retrying {@code -EAGAIN} while driving progress; answers {@code FLOODED <count>}.
     */
    private String flood(final long dest, final int count, final long tagBase)
    {
        final UnsafeBuffer out = ShmTests.direct(16);
        final long deadline = System.nanoTime() + DEADLINE_NS;
        for (int i = 0; i < count; i++)
        {
            final long tag = tagBase + i;
            out.putLong(0, tag);
            out.putLong(8, ~tag);
            int rc;
            while ((rc = ep.tinject(out, 0, 16, dest, tag)) == Errno.EAGAIN.negated())
            {
                if (System.nanoTime() - deadline > 0)
                {
                    return "ERROR flood stuck at " + i;
                }
                domain.progress();
                Thread.yield();
            }
            if (0 != rc)
            {
                return "ERROR flood post " + Errno.strerror(rc);
            }
        }
        return "FLOODED " + count;
    }

    /**
     * Against {@code dest}'s region {@code key}: write {@code value} at {@code address}, read it back, then
     * fetch-and-add 1 to the next 8 bytes; answers {@code RMA <value read> <old value of the add>}.
     */
    private String rma(final long dest, final long key, final long address, final long value)
    {
        final UnsafeBuffer out = ShmTests.direct(8);
        out.putLong(0, value);
        final UnsafeBuffer back = ShmTests.direct(8);
        final UnsafeBuffer one = ShmTests.direct(8);
        one.putLong(0, 1);
        final UnsafeBuffer old = ShmTests.direct(8);
        String failed = await(ep.write(out, 0, 8, dest, address, key, 1));
        if (null == failed)
        {
            failed = await(ep.read(back, 0, 8, dest, address, key, 2));
        }
        if (null == failed)
        {
            failed = await(ep.fetchAtomic(one, 0, 1, old, 0, dest, address + 8, key,
                io.jfabric.AtomicDatatype.UINT64, io.jfabric.AtomicOp.SUM, 3));
        }
        return null != failed ? failed : "RMA " + back.getLong(0) + " " + old.getLong(0);
    }

    /**
     * Wait for the completion of an operation just posted with {@code rc}.
     *
     * @return null when it completed, else the error answer.
     */
    private String await(final int rc)
    {
        if (0 != rc)
        {
            return "ERROR post " + Errno.strerror(rc);
        }
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                return null;
            }
            if (n == Errno.EAVAIL.negated())
            {
                cq.readErr(error);
                return "ERRNO " + error.errno() + " " + error.context();
            }
            if (System.nanoTime() - deadline > 0)
            {
                return "ERROR rma timed out";
            }
            domain.progress();
            Thread.yield();
        }
    }

    private int drainSends()
    {
        final int n = cq.read(entry);
        if (1 == n)
        {
            return 1;
        }
        if (n == Errno.EAVAIL.negated())
        {
            return -1;
        }
        domain.progress();
        Thread.yield();
        return 0;
    }

    /**
     * All-to-all: with peers' fi_addrs (index order, this process's own slot included as "-"), receive
     * {@code rounds} messages from each other peer (directed receives, tag {@code from << 16 | round}) and send as
     * many to each; message size by round, pattern seeded by (from, to, round); verify everything.
     */
    private String allToAll(final int rounds, final int me, final String[] addrs)
    {
        final int peers = addrs.length;
        final int[] sizes = {1, 64, ShmProvider.INJECT_SIZE, ShmProvider.EAGER_THRESHOLD + 1, 100_003};
        final UnsafeBuffer[][] in = new UnsafeBuffer[peers][rounds];
        int expected = 0;
        for (int from = 0; from < peers; from++)
        {
            if (from == me)
            {
                continue;
            }
            for (int r = 0; r < rounds; r++)
            {
                final int size = sizes[r % sizes.length];
                in[from][r] = ShmTests.direct(size);
                final int f = from;
                final int round = r;
                final int rc = postRetrying(() -> ep.trecv(in[f][round], 0, size, Long.parseLong(addrs[f]),
                    ((long) f << 16) | round, 0, 1_000_000L + f * 1000L + round));
                if (0 != rc)
                {
                    return "ERROR alltoall trecv " + Errno.strerror(rc);
                }
                expected++;
            }
        }
        for (int r = 0; r < rounds; r++)
        {
            for (int to = 0; to < peers; to++)
            {
                if (to == me)
                {
                    continue;
                }
                final int size = sizes[r % sizes.length];
                final UnsafeBuffer out = ShmTests.pattern(size, me * 1000 + to * 100 + r);
                final long dest = Long.parseLong(addrs[to]);
                final long tag = ((long) me << 16) | r;
                final int rc = postRetrying(() -> ep.tsend(out, 0, size, dest, tag, 2_000_000L));
                if (0 != rc)
                {
                    return "ERROR alltoall tsend " + Errno.strerror(rc);
                }
                expected++;
            }
        }
        final long deadline = System.nanoTime() + DEADLINE_NS;
        int received = 0;
        int done = 0;
        while (done < expected)
        {
            final int n = cq.read(entry);
            if (n == Errno.EAGAIN.negated())
            {
                if (System.nanoTime() - deadline > 0)
                {
                    return "ERROR alltoall completed " + done + " of " + expected;
                }
                domain.progress();
                Thread.yield();
                continue;
            }
            if (1 != n)
            {
                return "ERROR alltoall " + describeError();
            }
            done++;
            if (entry.context() >= 1_000_000L && entry.context() < 2_000_000L)
            {
                final int from = (int) ((entry.context() - 1_000_000L) / 1000);
                final int r = (int) ((entry.context() - 1_000_000L) % 1000);
                final int size = sizes[r % sizes.length];
                if (entry.len() != size || entry.tag() != (((long) from << 16) | r))
                {
                    return "ERROR alltoall from " + from + " round " + r + " len " + entry.len();
                }
                for (int i = 0; i < size; i++)
                {
                    if (in[from][r].getByte(i) != (byte) (from * 1000 + me * 100 + r + i * 31 + (i >>> 8)))
                    {
                        return "ERROR alltoall data from " + from + " round " + r + " byte " + i;
                    }
                }
                received++;
            }
        }
        return "ALLTOALL " + received;
    }

    private int postRetrying(final java.util.function.IntSupplier post)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int rc = post.getAsInt();
            if (rc != Errno.EAGAIN.negated() || System.nanoTime() - deadline > 0)
            {
                return rc;
            }
            domain.progress();
            Thread.yield();
        }
    }

    private String awaitContext(final long context)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                return context == entry.context() ? null : "ERROR unexpected completion " + entry.context();
            }
            if (n != Errno.EAGAIN.negated())
            {
                return "ERROR awaiting " + context + ": " + describeError();
            }
            if (System.nanoTime() - deadline > 0)
            {
                return "ERROR no completion for " + context;
            }
            domain.progress();
            Thread.yield();
        }
    }

    private String awaitError(final Errno expected)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (n == Errno.EAVAIL.negated())
            {
                cq.readErr(error);
                return expected == error.errno() ? null : "ERROR expected " + expected + " got " + error.errno();
            }
            if (1 == n)
            {
                return "ERROR expected an error, got completion " + entry.context();
            }
            if (System.nanoTime() - deadline > 0)
            {
                return "ERROR no " + expected;
            }
            domain.progress();
            Thread.yield();
        }
    }

    private String describeError()
    {
        if (1 == cq.readErr(error))
        {
            return "error " + error.errno() + " context " + error.context();
        }
        return "no error entry";
    }

    private String expectError()
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (n == Errno.EAVAIL.negated())
            {
                cq.readErr(error);
                return "ERRNO " + error.errno() + " " + error.context();
            }
            if (1 == n || System.nanoTime() - deadline > 0)
            {
                return "ERROR expected an error completion, read " + n;
            }
            domain.progress();
            Thread.yield();
        }
    }

    /**
     * Open the named address vector {@code name} read-only, answer the hex of each of its addresses, and send
     * {@code size} bytes (pattern 1) tagged {@code tag} to its {@code fiAddr} from a new endpoint bound to it.
     */
    private String sharedAvSend(final String name, final long fiAddr, final int size, final long tag)
    {
        final StringBuilder answer = new StringBuilder("AVSENT");
        try (AddressVector shared = domain.addressVector(io.jfabric.AvAttr.builder().name(name)
            .flags(io.jfabric.AvAttr.READ).build()))
        {
            for (long i = 0; i <= fiAddr; i++)
            {
                answer.append(' ').append(org.agrona.BitUtil.toHex(shared.lookup(i)));
            }
            final CompletionQueue sharedCq = domain.completionQueue(16, CqFormat.TAGGED);
            final Endpoint sender = domain.endpoint(domain.info()).bind(shared, 0)
                .bind(sharedCq, Flags.TRANSMIT | Flags.RECV).enable();
            try
            {
                final UnsafeBuffer out = ShmTests.pattern(size, 1);
                final int rc = sender.tsend(out, 0, size, fiAddr, tag, 5);
                if (0 != rc)
                {
                    return "ERROR avsend " + Errno.strerror(rc);
                }
                final long deadline = System.nanoTime() + DEADLINE_NS;
                while (1 != sharedCq.read(entry))
                {
                    if (System.nanoTime() - deadline > 0)
                    {
                        return "ERROR avsend timed out";
                    }
                    domain.progress();
                    Thread.yield();
                }
                return answer.toString();
            }
            finally
            {
                sender.close();
                sharedCq.close();
            }
        }
        catch (final FabricException ex)
        {
            return "REFUSED " + ex.errno() + " " + ex.getMessage();
        }
    }

    private String sendOne(final long dest, final int size, final long tag)
    {
        final UnsafeBuffer out = ShmTests.pattern(size, 1);
        final int rc = sendRetrying(out, size, dest, tag, true);
        if (0 != rc)
        {
            return "ERROR sendone " + Errno.strerror(rc);
        }
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                return "DONE " + entry.context();
            }
            if (n == Errno.EAVAIL.negated())
            {
                cq.readErr(error);
                return "ERRNO " + error.errno() + " " + error.context();
            }
            if (System.nanoTime() - deadline > 0)
            {
                return "ERROR sendone timed out";
            }
            domain.progress();
            Thread.yield();
        }
    }

    /**
     * {@code count} rounds of: post a tagged receive from {@code dest}, send {@code size} bytes to it, wait for both
     * (the peer runs the same command towards this child: traffic both ways, never more than one message ahead).
     */
    private String exchange(final long dest, final int count, final int size)
    {
        final UnsafeBuffer out = ShmTests.pattern(size, 5);
        final UnsafeBuffer in = ShmTests.direct(size);
        final long deadline = System.nanoTime() + DEADLINE_NS;
        for (int i = 0; i < count; i++)
        {
            check(ep.trecv(in, 0, size, dest, 77, 0, 20), "trecv");
            final int rc = sendRetrying(out, size, dest, 77, true);
            if (0 != rc)
            {
                return "ERROR exchange send " + Errno.strerror(rc);
            }
            int pending = 2;
            while (pending > 0)
            {
                final int n = cq.read(entry);
                if (1 == n)
                {
                    pending--;
                }
                else if (n != Errno.EAGAIN.negated())
                {
                    return "ERROR exchange " + i + ": " + describeError();
                }
                else if (System.nanoTime() - deadline > 0)
                {
                    return "ERROR exchange timed out at " + i;
                }
                else
                {
                    domain.progress();
                    Thread.yield();
                }
            }
        }
        return "EXCHANGED " + count;
    }

    /**
     * Send one tagged message of {@code size} bytes (pattern {@code seed}) from a block of this domain's shared pool,
     * wait for its completion, free the block; answer with the transport's direct-read and data-frame counts.
     */
    private String poolSend(final long dest, final int size, final long tag, final int seed, final boolean keep)
    {
        final org.agrona.concurrent.AtomicBuffer out = domain.allocateShared(size);
        ShmTests.fill(new UnsafeBuffer(out.addressOffset(), size), 0, size, seed);
        final int rc = sendRetrying(new UnsafeBuffer(out.addressOffset(), size), size, dest, tag, true);
        if (0 != rc)
        {
            return "ERROR poolsend " + Errno.strerror(rc);
        }
        final String sent = awaitContext(3);
        if (null != sent)
        {
            return sent;
        }
        if (keep)
        {
            pinnedShared = out;
        }
        else
        {
            domain.freeShared(out);
        }
        return "POOLSENT " + transport().directReads() + " " + ShmTests.agent(domain).dataFrames() + " " +
            out.addressOffset();
    }

    /**
     * Receive one tagged message (tag {@code tag}, up to {@code size} bytes) into a plain direct buffer; answer with
     * its length, its CRC and the transport's direct-read and data-frame counts.
     */
    private String receiveCrc(final int size, final long tag)
    {
        final UnsafeBuffer in = ShmTests.direct(size);
        check(ep.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, tag, 0, 4), "trecv");
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                final int length = (int) entry.len();
                return "RECEIVED " + length + " " + ShmTests.crc(in, 0, length) + " " + transport().directReads() +
                    " " + ShmTests.agent(domain).dataFrames();
            }
            if (n != Errno.EAGAIN.negated())
            {
                return "ERROR recvcrc " + describeError();
            }
            if (System.nanoTime() - deadline > 0)
            {
                return "ERROR recvcrc timed out";
            }
            domain.progress();
            Thread.yield();
        }
    }

    /**
     * The domain's shm transport (package-private in the runtime; tests only).
     */
    /**
     * Claim a record of {@code length} bytes in this domain's answer ring into the domain {@code peerName} (a second
     * mapping of its lane) and never commit it: what a writer killed in the middle of a 256 KiB data chunk leaves.
     */
    private String halfClaim(final String peerName, final int length)
    {
        final ShmDomainTransport transport = transport();
        final ShmLaneFile lane = ShmTests.announceLane(ShmConfiguration.directory(), peerName, transport.name(),
            transport.ownFile().incarnation());
        final int index = lane.answers().tryClaim(ShmDomainTransport.RECORD_TYPE, length);
        halfClaimed = lane;
        return index >= 0 ? "CLAIMED " + index : "ERROR claim " + index;
    }

    private ShmDomainTransport transport()
    {
        try
        {
            final java.lang.reflect.Method method = Domain.class.getDeclaredMethod("transport");
            method.setAccessible(true);
            return (ShmDomainTransport) method.invoke(domain);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static void check(final int rc, final String what)
    {
        if (0 != rc)
        {
            throw new IllegalStateException(what + " returned " + Errno.strerror(rc));
        }
    }
}
