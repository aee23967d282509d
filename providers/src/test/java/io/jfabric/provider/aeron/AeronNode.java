package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ext.DebugReceiveChannelEndpoint;
import io.aeron.driver.ext.RandomLossGenerator;
import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
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
import io.jfabric.Version;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A child JVM of the aeron process tests ({@link AeronNamespaceTest}, {@link AeronLossTest}): one aeron fabric,
 * one domain listening on {@code -Dnode.host}/{@code -Dnode.port} (getInfo with node, service and
 * {@code FI_SOURCE}), two endpoints and a registered region. Endpoint 0 is the <em>server</em>: a thread echoes the
 * tagged and untagged messages it receives to the requester's endpoint 1 and checks the per-sender order of
 * streamed messages; endpoint 1 is the <em>driver</em>, run by commands on stdin, one at a time:
 * <ul>
 *     <li>{@code PEER <addr0> <addr1>}: insert a node's two endpoints ({@code INSERTED <fa0> <fa1>}). Every node
 *     inserts every node, itself included, in one order, so node {@code k}'s endpoints are {@code 2k}, {@code 2k+1}
 *     everywhere.</li>
 *     <li>{@code SUITE <k>}: msg, tagged, RMA write/read and atomics against node {@code k}, data verified at every
 *     size of {@link #SIZES} ({@code SUITE OK <ops>} or {@code FAIL <why>}).</li>
 *     <li>{@code STREAM <k> <count>}: that many 8-byte tagged messages to node {@code k} ({@code STREAMED}).</li>
 *     <li>{@code COUNT <k>}: what this node's server received from node {@code k}: {@code COUNT <n> <disorder>}.</li>
 *     <li>{@code HOLD <k>}: a read of node k's region and a 1 MiB + 3 rendezvous send node k never matches, both
 *     outstanding ({@code HELD}); {@code ERRORS <n>}: wait for n error completions ({@code ERRORS ctx:errno ...}).</li>
 *     <li>{@code ECHO <k>}: one 64-byte tagged echo with node k within 20 s ({@code ECHO OK} or {@code FAIL}).</li>
 * </ul>
 * {@code -Dnode.loss=<rate>} runs the node's own media driver with Aeron's {@link RandomLossGenerator} dropping
 * that share of the data frames it receives.
 */
public final class AeronNode
{
    /** Sizes every op family is verified at: 0, 1, inject, eager threshold, chunk and frame limits -1/=/+1. */
    static final int[] SIZES = {0, 1, 4095, 4096, 4097, 8191, 8192, 8193, 262143, 262144, 262145, 524287, 524288,
        524289, (1 << 20) + 3};
    /** Largest message. */
    static final int MAX = (1 << 20) + 3;
    /** Key of the region. */
    static final long KEY = 91;
    static final long KIND_ECHO = 1L << 56;
    static final long KIND_STREAM = 2L << 56;
    static final long KIND_HOLD = 3L << 56;
    private static final long LOW_BITS = (1L << 56) - 1;
    private static final int WINDOW = 1 << 21;
    private static final int NODES = 4;
    private static final int ATOMICS = WINDOW * NODES;
    private static final int PATTERN = ATOMICS + 64;
    private static final int REGION = PATTERN + MAX;
    private static final int SLOTS = 4;
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(40);

    private final PrintStream out;
    private Domain domain;
    private AddressVector av;
    private Endpoint server;
    private Endpoint driver;
    private CompletionQueue serverCq;
    private CompletionQueue driverCq;
    private final AtomicLongArray received = new AtomicLongArray(NODES);
    private final AtomicLongArray disorder = new AtomicLongArray(NODES);
    private volatile boolean running = true;
    private int me;
    private final CompletionEntry entry = new CompletionEntry();
    private final CompletionErrorEntry error = new CompletionErrorEntry();
    private final UnsafeBuffer local = direct(MAX);
    private final UnsafeBuffer back = direct(MAX);
    private final UnsafeBuffer hold = direct(MAX);
    private final UnsafeBuffer lost = direct(65536);

    private AeronNode(final PrintStream out)
    {
        this.out = out;
    }

    /**
     * @param args none (system properties {@code node.host}, {@code node.port}, {@code node.index},
     *             {@code node.loss}).
     * @throws Exception on a failure of the set-up.
     */
    public static void main(final String[] args) throws Exception
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.US_ASCII);
        final double loss = Double.parseDouble(System.getProperty("node.loss", "0"));
        MediaDriver lossyDriver = null;
        if (loss > 0)
        {
            final String dir = AeronFabricBackend.embeddedDirectory();
            final MediaDriver.Context context =
                AeronFabricBackend.driverContext(dir, AeronConfiguration.livenessTimeoutMs());
            final RandomLossGenerator dataLoss = new RandomLossGenerator(loss);
            context.receiveChannelEndpointSupplier((channel, dispatcher, status, ctx) ->
                new DebugReceiveChannelEndpoint(channel, dispatcher, status, ctx, dataLoss, (a, b, c) -> false));
            lossyDriver = MediaDriver.launch(context);
            System.setProperty(AeronConfiguration.DIR_PROP, dir);
        }
        try
        {
            new AeronNode(out).run();
        }
        finally
        {
            CloseHelper.quietClose(lossyDriver);
        }
    }

    private void run() throws Exception
    {
        me = Integer.getInteger("node.index", 0);
        final Info hints = Info.builder().caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC)
            .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build()).build();
        final Info info = Fabric.getInfo(Version.CURRENT, System.getProperty("node.host"),
            System.getProperty("node.port"), Flags.SOURCE, hints).get(0);
        final UnsafeBuffer region = direct(REGION);
        for (int i = 0; i < MAX; i++)
        {
            region.putByte(PATTERN + i, (byte) (i * 7 + 3));
        }
        try (Fabric fabric = Fabric.open(info);
            Domain d = fabric.domain(info, "yield");
            AddressVector a = d.addressVector(AvType.TABLE, 16);
            CompletionQueue scq = d.completionQueue(256, CqFormat.TAGGED);
            CompletionQueue dcq = d.completionQueue(256, CqFormat.TAGGED);
            MemoryRegion mr = d.registerMemory(region, 0, REGION, Flags.REMOTE_READ | Flags.REMOTE_WRITE, KEY))
        {
            domain = d;
            av = a;
            serverCq = scq;
            driverCq = dcq;
            server = d.endpoint(info).bind(av, 0).bind(scq, Flags.TRANSMIT | Flags.RECV).enable();
            final Info delivery = info.toBuilder().txAttr(info.txAttr().toBuilder()
                .opFlags(info.txAttr().opFlags() | Flags.DELIVERY_COMPLETE).build()).build();
            driver = d.endpoint(delivery).bind(av, 0).bind(dcq, Flags.TRANSMIT | Flags.RECV).enable();
            final Thread serving = new Thread(this::serve, "node-server");
            serving.setDaemon(true);
            serving.start();
            out.println("READY " + text(server.name()) + " " + text(driver.name()));
            commands();
            running = false;
            serving.join(5000);
            driver.close();
            server.close();
        }
    }

    private void commands() throws Exception
    {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        String line;
        while (null != (line = in.readLine()))
        {
            final String[] words = line.trim().split(" ");
            try
            {
                switch (words[0])
                {
                    case "PEER" -> out.println("INSERTED " + av.insert(words[1].getBytes(StandardCharsets.US_ASCII)) +
                        " " + av.insert(words[2].getBytes(StandardCharsets.US_ASCII)));
                    case "SUITE" -> out.println("SUITE OK " + suite(Integer.parseInt(words[1])));
                    case "STREAM" -> out.println("STREAMED " +
                        stream(Integer.parseInt(words[1]), Integer.parseInt(words[2])));
                    case "COUNT" -> out.println("COUNT " + received.get(Integer.parseInt(words[1])) + " " +
                        disorder.get(Integer.parseInt(words[1])));
                    case "HOLD" -> out.println("HELD " + hold(Integer.parseInt(words[1])));
                    case "READ" -> out.println("POSTED " + lostRead(Integer.parseInt(words[1])));
                    case "ERRORS" -> out.println("ERRORS " + errors(Integer.parseInt(words[1])));
                    case "ECHO" -> out.println("ECHO OK " + echoOnce(Integer.parseInt(words[1])));
                    case "EXIT" ->
                    {
                        return;
                    }
                    default -> out.println("FAIL unknown command " + line);
                }
            }
            catch (final Throwable ex)
            {
                out.println("FAIL " + line + ": " + ex.toString().replace('\n', ' '));
            }
        }
    }

    // ---- the server (endpoint 0), on its own thread

    private void serve()
    {
        final UnsafeBuffer[] tagged = new UnsafeBuffer[SLOTS];
        final UnsafeBuffer[] untagged = new UnsafeBuffer[SLOTS];
        final long[] next = new long[NODES];
        final CompletionEntry e = new CompletionEntry();
        final CompletionErrorEntry err = new CompletionErrorEntry();
        for (int s = 0; s < SLOTS; s++)
        {
            tagged[s] = direct(MAX);
            untagged[s] = direct(MAX);
            postTagged(tagged[s], s);
            must(server.recv(untagged[s], 0, MAX, AddressVector.ADDR_UNSPEC, 100 + s), "recv");
        }
        final UnsafeBuffer[] streams = new UnsafeBuffer[64];
        for (int s = 0; s < streams.length; s++)
        {
            streams[s] = direct(8);
            must(server.trecv(streams[s], 0, 8, AddressVector.ADDR_UNSPEC, KIND_STREAM, LOW_BITS, 1000 + s),
                "trecv stream");
        }
        while (running)
        {
            final int n = serverCq.read(e);
            if (1 != n)
            {
                if (Errno.EAVAIL.negated() == n)
                {
                    serverCq.readErr(err);
                    System.err.println("server error completion " + err.context() + " errno " + err.errno());
                }
                Thread.yield();
                continue;
            }
            final long context = e.context();
            if (context >= 1000)
            {
                final int s = (int) (context - 1000);
                final int from = (int) ((e.tag() >>> 32) & 0xFF);
                final long seq = streams[s].getLong(0);
                if (seq != next[from])
                {
                    disorder.incrementAndGet(from);
                }
                next[from] = seq + 1;
                received.incrementAndGet(from);
                must(server.trecv(streams[s], 0, 8, AddressVector.ADDR_UNSPEC, KIND_STREAM, LOW_BITS, context),
                    "trecv stream");
            }
            else if (context >= 300)
            {
                final int s = (int) (context - 300);
                must(server.recv(untagged[s], 0, MAX, AddressVector.ADDR_UNSPEC, 100 + s), "recv");
            }
            else if (context >= 200)
            {
                postTagged(tagged[(int) (context - 200)], (int) (context - 200));
            }
            else if (context >= 100)
            {
                final int s = (int) (context - 100);
                final long requester = e.data();
                retry(() -> server.senddata(untagged[s], 0, (int) e.len(), requester, 2 * requester + 1, 300 + s));
            }
            else
            {
                final int s = (int) context;
                final long tag = e.tag();
                final long requester = (tag >>> 32) & 0xFF;
                retry(() -> server.tsend(tagged[s], 0, (int) e.len(), 2 * requester + 1, tag, 200 + s));
            }
        }
    }

    private void postTagged(final UnsafeBuffer buffer, final int slot)
    {
        must(server.trecv(buffer, 0, MAX, AddressVector.ADDR_UNSPEC, KIND_ECHO, LOW_BITS, slot), "trecv");
    }

    // ---- the driver (endpoint 1), on the command thread

    private String suite(final int k)
    {
        drain();
        final long peer = 2L * k;
        int ops = 0;
        for (int i = 0; i < SIZES.length; i++)
        {
            final int size = SIZES[i];
            final int seed = me * 16 + i;
            // tagged echo
            fill(local, size, seed);
            final long tag = KIND_ECHO | ((long) me << 32) | i;
            back.setMemory(0, MAX, (byte) 0);
            must(driver.trecv(back, 0, MAX, peer, tag, 0, 1), "trecv");
            must(driver.tsend(local, 0, size, peer, tag, 2), "tsend");
            awaitBoth(1, 2, size, "tagged " + size);
            check(back, 0, size, seed, "tagged echo");
            // untagged echo with remote CQ data naming us
            back.setMemory(0, MAX, (byte) 0);
            must(driver.recv(back, 0, MAX, peer, 3), "recv");
            must(driver.senddata(local, 0, size, me, peer, 4), "senddata");
            awaitBoth(3, 4, size, "msg " + size);
            check(back, 0, size, seed, "msg echo");
            // RMA write into our window of the peer's region, read it back; read the peer's pattern
            final long window = (long) me * WINDOW;
            must(driver.write(local, 0, size, peer, window, KEY, 5), "write");
            await(5, "write " + size);
            back.setMemory(0, MAX, (byte) 0);
            must(driver.read(back, 0, size, peer, window, KEY, 6), "read");
            await(6, "read " + size);
            check(back, 0, size, seed, "read back of write");
            back.setMemory(0, MAX, (byte) 0);
            must(driver.read(back, 0, size, peer, PATTERN, KEY, 7), "read pattern");
            await(7, "read pattern " + size);
            for (int b = 0; b < size; b++)
            {
                if (back.getByte(b) != (byte) (b * 7 + 3))
                {
                    throw new IllegalStateException("read pattern " + size + ": byte " + b + " differs");
                }
            }
            ops += 5;
        }
        // atomics on our word of the peer's region: two fetch-adds, a compare-swap, a read
        final UnsafeBuffer operand = direct(8);
        final UnsafeBuffer compare = direct(8);
        final UnsafeBuffer result = direct(8);
        final long word = ATOMICS + 8L * me;
        final long before = readWord(peer, word);
        operand.putLong(0, 5);
        must(driver.fetchAtomic(operand, 0, 1, result, 0, peer, word, KEY, AtomicDatatype.UINT64, AtomicOp.SUM, 8),
            "fetch add");
        await(8, "fetch add");
        expect(before, result.getLong(0), "fetch add old value");
        operand.putLong(0, 7);
        must(driver.fetchAtomic(operand, 0, 1, result, 0, peer, word, KEY, AtomicDatatype.UINT64, AtomicOp.SUM, 9),
            "fetch add");
        await(9, "fetch add");
        expect(before + 5, result.getLong(0), "second fetch add old value");
        compare.putLong(0, before + 12);
        operand.putLong(0, 1000 + me);
        must(driver.compareAtomic(operand, 0, 1, compare, 0, result, 0, peer, word, KEY, AtomicDatatype.UINT64,
            AtomicOp.CSWAP, 10), "cswap");
        await(10, "cswap");
        expect(before + 12, result.getLong(0), "cswap old value");
        expect(1000 + me, readWord(peer, word), "word after cswap");
        return Integer.toString(ops + 4);
    }

    private long readWord(final long peer, final long word)
    {
        final UnsafeBuffer value = direct(8);
        must(driver.read(value, 0, 8, peer, word, KEY, 11), "read word");
        await(11, "read word");
        return value.getLong(0);
    }

    private int stream(final int k, final int count)
    {
        final UnsafeBuffer value = direct(8);
        final long tag = KIND_STREAM | ((long) me << 32);
        for (int i = 0; i < count; i++)
        {
            value.putLong(0, i);
            final long deadline = System.nanoTime() + DEADLINE_NS;
            int rc;
            while (0 != (rc = driver.tinject(value, 0, 8, 2L * k, tag)))
            {
                if (Errno.EAGAIN.negated() != rc || System.nanoTime() - deadline > 0)
                {
                    throw new IllegalStateException("tinject " + i + ": " + rc);
                }
                drainErrors();
                Thread.yield();
            }
        }
        return count;
    }

    private String hold(final int k)
    {
        final long peer = 2L * k;
        fill(hold, MAX, 9);
        must(driver.tsend(hold, 0, MAX, peer, KIND_HOLD | ((long) me << 32), 22), "held tsend");
        return "22";
    }

    private String lostRead(final int k)
    {
        must(driver.read(lost, 0, 65536, 2L * k, PATTERN, KEY, 21), "read");
        return "21";
    }

    private String errors(final int n)
    {
        final StringBuilder found = new StringBuilder();
        final long start = System.nanoTime();
        int seen = 0;
        while (seen < n)
        {
            final int rc = driverCq.read(entry);
            if (Errno.EAVAIL.negated() == rc)
            {
                driverCq.readErr(error);
                if (0 == error.context())
                {
                    continue; // an inject (no context) accepted before the peer was found down
                }
                found.append(error.context()).append(':').append(error.errno().value()).append(':')
                    .append(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).append(' ');
                seen++;
            }
            else if (System.nanoTime() - start > DEADLINE_NS)
            {
                throw new IllegalStateException("only " + seen + " errors: " + found);
            }
            else
            {
                Thread.yield();
            }
        }
        return found.toString().trim();
    }

    private long echoOnce(final int k)
    {
        drain();
        final long start = System.nanoTime();
        final long peer = 2L * k;
        fill(local, 64, 77);
        final long tag = KIND_ECHO | ((long) me << 32) | 0xFFFF;
        must(driver.trecv(back, 0, MAX, peer, tag, 0, 31), "trecv");
        try
        {
            must(driver.tsend(local, 0, 64, peer, tag, 32), "tsend");
            awaitBoth(31, 32, 64, "echo");
        }
        catch (final RuntimeException ex)
        {
            driver.cancel(31);
            throw ex;
        }
        check(back, 0, 64, 77, "echo");
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /**
     * Forget what earlier failed commands left on the driver's queue (a cancelled receive, a late error).
     */
    private void drain()
    {
        while (true)
        {
            final int n = driverCq.read(entry);
            if (Errno.EAVAIL.negated() == n)
            {
                driverCq.readErr(error);
                System.err.println("drained error completion " + error.context() + " errno " + error.errno());
            }
            else if (1 != n)
            {
                return;
            }
        }
    }

    private void drainErrors()
    {
        if (Errno.EAVAIL.negated() == driverCq.read(entry))
        {
            driverCq.readErr(error);
            throw new IllegalStateException("error completion " + error.context() + " errno " + error.errno());
        }
    }

    private void awaitBoth(final long a, final long b, final int size, final String what)
    {
        boolean gotA = false;
        boolean gotB = false;
        while (!gotA || !gotB)
        {
            final long context = next(what + " (receive done " + gotA + ", send done " + gotB + ")");
            if (a == context)
            {
                expect(size, entry.len(), what + " echoed length");
                gotA = true;
            }
            else if (b == context)
            {
                gotB = true;
            }
            else
            {
                throw new IllegalStateException(what + ": unexpected completion " + context);
            }
        }
    }

    private void await(final long context, final String what)
    {
        final long got = next(what);
        if (got != context)
        {
            throw new IllegalStateException(what + ": completion " + got + " instead of " + context);
        }
    }

    private long next(final String what)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = driverCq.read(entry);
            if (1 == n)
            {
                return entry.context();
            }
            if (Errno.EAVAIL.negated() == n)
            {
                driverCq.readErr(error);
                throw new IllegalStateException(what + ": error completion " + error.context() + " errno " +
                    error.errno());
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException(what + ": no completion within the deadline");
            }
            Thread.yield();
        }
    }

    private interface Post
    {
        int post();
    }

    private static void retry(final Post post)
    {
        int rc;
        while (Errno.EAGAIN.negated() == (rc = post.post()))
        {
            Thread.yield();
        }
        must(rc, "server post");
    }

    private static void must(final int rc, final String what)
    {
        if (0 != rc)
        {
            throw new IllegalStateException(what + " answered " + rc + " (" + Errno.strerror(rc) + ")");
        }
    }

    private static void expect(final long expected, final long actual, final String what)
    {
        if (expected != actual)
        {
            throw new IllegalStateException(what + ": " + actual + " != " + expected);
        }
    }

    static void fill(final UnsafeBuffer buffer, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(i, (byte) (seed + i * 31 + (i >>> 8)));
        }
    }

    private static void check(final UnsafeBuffer buffer, final int offset, final int length, final int seed,
        final String what)
    {
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(offset + i) != (byte) (seed + i * 31 + (i >>> 8)))
            {
                throw new IllegalStateException(what + " of " + length + " B: byte " + i + " differs");
            }
        }
    }

    static UnsafeBuffer direct(final int length)
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, length)), 0, length);
    }

    private static String text(final byte[] name)
    {
        return new String(name, StandardCharsets.US_ASCII);
    }
}
