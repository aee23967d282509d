package io.jfabric.bench.atomic;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Flags;
import io.jfabric.MrMode;
import io.jfabric.spi.AtomicCapabilities;
import io.jfabric.agent.AtomicExecutor;
import io.jfabric.agent.MemoryRegistry;
import org.agrona.BufferUtil;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of one target-side atomic as the domain agent runs it: the MR check ({@link MemoryRegistry#verify})
 * followed by the operation ({@link AtomicExecutor}), for a non-fetching SUM, a fetching ATOMIC_WRITE (swap)
 * and a CSWAP, on {@code count} elements of {@code datatype}.
 * <p>
 * Run with {@code -prof gc}: {@code gc.alloc.rate.norm} must be 0 B/op, which shows that neither the executor
 * nor the registry allocates on the hot path.
 * <p>
 * Agrona's {@code UnsafeApi} needs {@code jdk.internal.misc} opened, which the fork's JVM arguments do.
 * <p>
 * Threading: single-threaded, as the domain agent.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = { "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED" })
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class AtomicExecutorBenchmark
{
    private static final long KEY = 42;

    @Param({"UINT64", "INT32", "DOUBLE", "DOUBLE_COMPLEX"})
    private AtomicDatatype datatype;

    @Param({"1", "4"})
    private int count;

    private final AtomicExecutor executor = new AtomicExecutor(AtomicCapabilities.full(64));
    private final MemoryRegistry registry = new MemoryRegistry(MrMode.VIRT_ADDR, 1);
    private ByteBuffer memory;
    private long target;
    private long operand;
    private long compare;
    private long result;
    private int length;

    /**
     * Allocate target memory, register it, and set operands so that CSWAP swaps on every other call.
     */
    @Setup
    public void setup()
    {
        memory = ByteBuffer.allocateDirect(4 * 64).order(ByteOrder.nativeOrder());
        target = BufferUtil.address(memory);
        operand = target + 64;
        compare = target + 128;
        result = target + 192;
        length = count * datatype.size();
        registry.register(target, 64, Flags.REMOTE_READ | Flags.REMOTE_WRITE, KEY);
    }

    /**
     * Non-fetching SUM after its MR check.
     *
     * @return the status, consumed by JMH.
     */
    @Benchmark
    public long atomicSum()
    {
        final long address = registry.verify(KEY, target, length, Flags.REMOTE_WRITE);
        return address < 0 ? address : executor.atomic(AtomicOp.SUM, datatype, address, operand, count);
    }

    /**
     * Fetching ATOMIC_WRITE (a swap) after its MR check (fetching atomics need read and write rights).
     *
     * @return the status, consumed by JMH.
     */
    @Benchmark
    public long fetchSwap()
    {
        final long address = registry.verify(KEY, target, length, Flags.REMOTE_READ | Flags.REMOTE_WRITE);
        return address < 0 ? address :
            executor.fetchAtomic(AtomicOp.ATOMIC_WRITE, datatype, address, operand, result, count);
    }

    /**
     * CSWAP after its MR check.
     *
     * @return the status, consumed by JMH.
     */
    @Benchmark
    public long compareSwap()
    {
        final long address = registry.verify(KEY, target, length, Flags.REMOTE_READ | Flags.REMOTE_WRITE);
        return address < 0 ? address :
            executor.compareAtomic(AtomicOp.CSWAP, datatype, address, operand, compare, result, count);
    }
}
