package io.jfabric.bench.aries;

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
import io.jfabric.aries.AriesNode;
import io.jfabric.aries.Cdm;
import io.jfabric.aries.GniCq;
import io.jfabric.aries.GniEp;
import io.jfabric.aries.GniNic;
import io.jfabric.aries.GniRc;
import io.jfabric.aries.JobRegistry;
import io.jfabric.aries.MemHandle;
import io.jfabric.aries.NodeDirectory;
import io.jfabric.aries.PostDescriptor;
import io.jfabric.aries.ShmAriesWire;
import io.jfabric.aries.SmsgAttr;
import io.jfabric.aries.TransactionKind;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Emulator overhead (issue 12), measured in one run against the shm provider it rides on: a 64 B SMSG round trip
 * between two emulated nodes over the shm wire against a 64 B tagged round trip between two shm domains, and a
 * 1 MiB BTE PUT against a 1 MiB {@code fi_write}. Both sides of each pair live in this process and are driven by
 * the benchmark thread (the emulated nodes stepped deterministically, the shm domains with MANUAL progress), so
 * the comparison is between code paths, not schedulers. Run with {@code -prof gc} for {@code gc.alloc.rate.norm}.
 * <p>
 * Threading: one benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class AriesShmBenchmark
{
    private static final int PTAG = 10;
    private static final int COOKIE = 0x0A0B_0001;
    private static final int MESSAGE = 64;
    private static final int LARGE = 1 << 20;
    private static final long TAG = 0x42;
    private static final long KEY = 9;

    private Path root;
    private AriesNode nodeA;
    private AriesNode nodeB;
    private GniCq txA;
    private GniCq txB;
    private GniCq rxA;
    private GniCq rxB;
    private GniEp epA;
    private GniEp epB;
    private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
    private final UnsafeBuffer echo = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
    private final PostDescriptor put = new PostDescriptor();

    private Fabric fabric;
    private Domain domainA;
    private Domain domainB;
    private Endpoint a;
    private Endpoint b;
    private CompletionQueue cqA;
    private CompletionQueue cqB;
    private long dest;
    private AddressVector avA;
    private AddressVector avB;
    private MemoryRegion region;
    private final CompletionEntry entry = new CompletionEntry();
    private final UnsafeBuffer tx = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
    private final UnsafeBuffer rx = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
    private final UnsafeBuffer largeSource = new UnsafeBuffer(BufferUtil.allocateDirectAligned(LARGE, 4096));
    private final UnsafeBuffer largeTarget = new UnsafeBuffer(BufferUtil.allocateDirectAligned(LARGE, 4096));
    private final UnsafeBuffer shmTarget = new UnsafeBuffer(BufferUtil.allocateDirectAligned(LARGE, 4096));

    /**
     * Open both pairs.
     *
     * @throws IOException when the temporary folder cannot be made.
     */
    @Setup
    public void setup() throws IOException
    {
        root = Files.createTempDirectory("aries-bench");
        final NodeDirectory directory = new NodeDirectory(root.resolve("directory"));
        final JobRegistry jobs = new JobRegistry().register(COOKIE, PTAG);
        final String suffix = Long.toString(ProcessHandle.current().pid());
        nodeA = AriesNode.open(new AriesNode.Context().deviceAddress(1).directory(directory).jobs(jobs)
            .wire(ShmAriesWire.open("aries-bench-a-" + suffix)));
        nodeB = AriesNode.open(new AriesNode.Context().deviceAddress(2).directory(directory).jobs(jobs)
            .wire(ShmAriesWire.open("aries-bench-b-" + suffix)));
        final GniNic nicA = nodeA.cdmCreate(1, PTAG, COOKIE, Cdm.MODE_ERR_NO_KILL).attach(0);
        final GniNic nicB = nodeB.cdmCreate(2, PTAG, COOKIE, Cdm.MODE_ERR_NO_KILL).attach(0);
        txA = nicA.cqCreate(256);
        txB = nicB.cqCreate(256);
        rxA = nicA.cqCreate(1024);
        rxB = nicB.cqCreate(1024);
        epA = nicA.epCreate(txA);
        epB = nicB.epCreate(txB);
        epA.bind(2, 2);
        epB.bind(1, 1);
        final SmsgAttr localA = new SmsgAttr();
        localA.rxCq = rxA;
        final SmsgAttr localB = new SmsgAttr();
        localB.rxCq = rxB;
        epA.smsgInit(localA, localB);
        epB.smsgInit(localB, localA);
        final MemHandle sourceHandle = new MemHandle();
        final MemHandle targetHandle = new MemHandle();
        nicA.memRegister(largeSource, 0, LARGE, null, GniNic.MEM_READWRITE, 0, sourceHandle);
        nicB.memRegister(largeTarget, 0, LARGE, null, GniNic.MEM_READWRITE, 0, targetHandle);
        put.type = TransactionKind.RDMA_PUT;
        put.localAddr = largeSource.addressOffset();
        put.localMemHandle.set(sourceHandle);
        put.remoteAddr = largeTarget.addressOffset();
        put.remoteMemHandle.set(targetHandle);
        put.length = LARGE;

        final Info hints = Info.builder()
            .caps(Flags.TAGGED | Flags.RMA)
            .fabricAttr(FabricAttr.builder().provName("shm").build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build())
            .build();
        final Info info = Fabric.getInfo(hints).get(0);
        fabric = Fabric.open(info);
        domainA = fabric.domain(info, "backoff");
        domainB = fabric.domain(info, "backoff");
        avA = domainA.addressVector(AvType.TABLE, 4);
        avB = domainB.addressVector(AvType.TABLE, 4);
        cqA = domainA.completionQueue(1024, CqFormat.TAGGED);
        cqB = domainB.completionQueue(1024, CqFormat.TAGGED);
        a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
        b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable();
        dest = avA.insert(b.name());
        avB.insert(a.name());
        region = domainB.registerMemory(shmTarget, 0, LARGE, Flags.REMOTE_READ | Flags.REMOTE_WRITE, KEY);
    }

    /**
     * Close both pairs.
     *
     * @throws IOException when the temporary folder cannot be removed.
     */
    @TearDown
    public void tearDown() throws IOException
    {
        region.close();
        a.close();
        b.close();
        cqA.close();
        cqB.close();
        avA.close();
        avB.close();
        domainA.close();
        domainB.close();
        fabric.close();
        nodeA.close();
        nodeB.close();
        try (var files = Files.walk(root))
        {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    /**
     * 64 B SMSG A→B, B takes it and sends it back, A takes the echo (both engines stepped by this thread).
     *
     * @return a byte of the echo.
     */
    @Benchmark
    public long smsgRoundTrip64()
    {
        while (GniRc.SUCCESS != epA.smsgSendWTag(null, 0, 0, message, 0, MESSAGE, 1, 10))
        {
            step();
        }
        while (GniRc.SUCCESS != epB.smsgGetNextWTag(GniEp.SMSG_ANY_TAG))
        {
            step();
        }
        echo.putBytes(0, epB.smsgMessage(), 0, MESSAGE);
        epB.smsgRelease();
        while (GniRc.SUCCESS != epB.smsgSendWTag(null, 0, 0, echo, 0, MESSAGE, 2, 10))
        {
            step();
        }
        while (GniRc.SUCCESS != epA.smsgGetNextWTag(GniEp.SMSG_ANY_TAG))
        {
            step();
        }
        final long value = epA.smsgMessage().getByte(0);
        epA.smsgRelease();
        drain();
        return value;
    }

    /**
     * 1 MiB BTE PUT A→B until A's completion event.
     *
     * @return the event.
     */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long btePut1MiB()
    {
        if (GniRc.SUCCESS != epA.postRdma(put))
        {
            throw new IllegalStateException("postRdma");
        }
        int rc;
        while (GniRc.NOT_DONE == (rc = txA.getEvent()))
        {
            step();
        }
        if (GniRc.SUCCESS != rc)
        {
            throw new IllegalStateException("PUT failed: " + GniRc.name(rc));
        }
        return txA.event();
    }

    /**
     * 64 B tagged round trip between two shm domains (MANUAL progress, {@code fi_trecv} + {@code fi_tinject}).
     *
     * @return a byte of the echo.
     */
    @Benchmark
    public long shmTaggedRoundTrip64()
    {
        check(b.trecv(rx, 0, MESSAGE, AddressVector.ADDR_UNSPEC, TAG, 0, 1));
        check(a.tinject(tx, 0, MESSAGE, dest, TAG));
        await(cqB, domainA);
        check(a.trecv(rx, 0, MESSAGE, AddressVector.ADDR_UNSPEC, TAG, 0, 1));
        check(b.tinject(tx, 0, MESSAGE, 0, TAG));
        await(cqA, domainB);
        return rx.getByte(0);
    }

    /**
     * 1 MiB {@code fi_write} from A into B's region until A's completion.
     *
     * @return the completion's context.
     */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long shmWrite1MiB()
    {
        check(a.write(largeSource, 0, LARGE, dest, 0, KEY, 3));
        return await(cqA, domainB);
    }

    private void step()
    {
        nodeA.doWork();
        nodeB.doWork();
    }

    private void drain()
    {
        while (GniRc.NOT_DONE != txA.getEvent())
        {
            // local SMSG events
        }
        while (GniRc.NOT_DONE != txB.getEvent())
        {
            // local SMSG events
        }
        while (GniRc.NOT_DONE != rxA.getEvent())
        {
            // remote SMSG events: the mailboxes are what the round trip reads
        }
        while (GniRc.NOT_DONE != rxB.getEvent())
        {
            // as above
        }
    }

    private long await(final CompletionQueue cq, final Domain other)
    {
        while (true)
        {
            other.progress();
            final int n = cq.read(entry);
            if (1 == n)
            {
                return entry.context();
            }
            if (n != Errno.EAGAIN.negated())
            {
                throw new IllegalStateException("cq.read returned " + n);
            }
        }
    }

    private static void check(final int status)
    {
        if (0 != status)
        {
            throw new IllegalStateException("post returned " + status);
        }
    }
}
