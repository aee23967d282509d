package io.jfabric.bench.gni;

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
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Issue 15's benchmark: a tagged ping-pong between two domains of one process over {@code gni} (each domain its own
 * emulated Aries node, the nodes on the shm wire: {@code -Djfabric.gni.wire=shm}) and over {@code shm}, same run, same
 * JVM, same driving: MANUAL data progress, one thread posts {@code trecv} at both ends, {@code tsend} A to B, B to A,
 * and progresses both domains until both receive completions are read. One operation is one round trip; 64 B gives
 * the round-trip time, 1 MiB (gni: rendezvous by BTE GET; shm: its streamed protocol) the ping-pong bandwidth
 * (2 MiB moved per round trip). Run with {@code -prof gc}: {@code gc.alloc.rate.norm} is the data path's allocation
 * per round trip, every thread included (gni's NIC engine thread too).
 * <p>
 * Threading: one benchmark thread (plus gni's process-wide NIC engine thread).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "-Djfabric.gni.wire=shm"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class GniVsShmPingPongBenchmark
{
    private static final long TAG = 0x15;

    /** The provider: {@code gni} or {@code shm}. */
    @Param({"gni", "shm"})
    public String provider;

    /** Message bytes each way. */
    @Param({"64", "1048576"})
    public int size;

    private Fabric fabric;
    private Domain domainA;
    private Domain domainB;
    private AddressVector avA;
    private AddressVector avB;
    private CompletionQueue cqA;
    private CompletionQueue cqB;
    private Endpoint a;
    private Endpoint b;
    private long toB;
    private long toA;
    private UnsafeBuffer txA;
    private UnsafeBuffer rxA;
    private UnsafeBuffer rxB;
    private final CompletionEntry entry = new CompletionEntry();

    /**
     * Open the pair.
     */
    @Setup
    public void setup()
    {
        final Info info = Fabric.getInfo(Info.builder().caps(Flags.MSG | Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(provider).build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build())
            .build()).get(0);
        fabric = Fabric.open(info);
        domainA = fabric.domain(info, "yield");
        domainB = fabric.domain(info, "yield");
        avA = domainA.addressVector(AvType.TABLE, 4);
        avB = domainB.addressVector(AvType.TABLE, 4);
        cqA = domainA.completionQueue(64, CqFormat.TAGGED);
        cqB = domainB.completionQueue(64, CqFormat.TAGGED);
        a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
        b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable();
        toB = avA.insert(b.name());
        toA = avB.insert(a.name());
        txA = new UnsafeBuffer(BufferUtil.allocateDirectAligned(size, 64));
        rxA = new UnsafeBuffer(BufferUtil.allocateDirectAligned(size, 64));
        rxB = new UnsafeBuffer(BufferUtil.allocateDirectAligned(size, 64));
        for (int i = 0; i < size; i++)
        {
            txA.putByte(i, (byte) i);
        }
    }

    /**
     * Close it.
     */
    @TearDown
    public void tearDown()
    {
        a.close();
        b.close();
        cqA.close();
        cqB.close();
        avA.close();
        avB.close();
        domainA.close();
        domainB.close();
        fabric.close();
    }

    /**
     * One tagged round trip of {@link #size} bytes each way.
     *
     * @return the received lengths (checked).
     */
    @Benchmark
    public long roundTrip()
    {
        check(b.trecv(rxB, 0, size, AddressVector.ADDR_UNSPEC, TAG, 0, 1));
        check(a.trecv(rxA, 0, size, AddressVector.ADDR_UNSPEC, TAG, 0, 2));
        check(a.tsend(txA, 0, size, toB, TAG, 3));
        final long there = await(cqB);
        await(cqA);
        check(b.tsend(rxB, 0, size, toA, TAG, 4));
        final long back = await(cqA);
        await(cqB);
        if (there != size || back != size)
        {
            throw new IllegalStateException("lengths " + there + ", " + back);
        }
        return there + back;
    }

    /**
     * @return domain A (after {@link #setup()}), for {@link GniIdleCycle}.
     */
    Domain domainA()
    {
        return domainA;
    }

    /** Progress both domains until {@code cq} gives one completion; its length for a receive, else 0. */
    private long await(final CompletionQueue cq)
    {
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                return 0 != (entry.flags() & Flags.RECV) ? entry.len() : 0;
            }
            if (Errno.EAGAIN.negated() != n)
            {
                throw new IllegalStateException("cq.read: " + Errno.strerror(n));
            }
            domainA.progress();
            domainB.progress();
        }
    }

    private static void check(final int rc)
    {
        if (0 != rc)
        {
            throw new IllegalStateException(Errno.strerror(rc));
        }
    }
}
