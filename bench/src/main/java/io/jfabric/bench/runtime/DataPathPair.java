package io.jfabric.bench.runtime;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.Counter;
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

import java.nio.ByteBuffer;

/**
 * Two inproc domains with MANUAL progress, one RDM endpoint each (A initiates, B is the target), driven from one
 * thread: every method posts one data-path operation and then runs both domains' duty cycles and reads the
 * completions it produces, so that each call leaves the pair as it found it (nothing queued, nothing outstanding).
 * <p>
 * A's CQ receives transmit completions, B's CQ receive completions (TAGGED format, every field filled); A has a
 * counter bound to SEND|WRITE|READ, B one bound to RECV. B registers a 4 KiB region (key {@link #KEY}) for RMA and
 * atomics. Every method checks what the call returned and throws {@link IllegalStateException} on anything else, so
 * a benchmark measures the intended path or fails.
 * <p>
 * Threading: one thread (the JMH benchmark thread).
 */
public final class DataPathPair implements AutoCloseable
{
    /**
     * The target region's key.
     */
    public static final long KEY = 7;
    private static final int SIZE = 8;
    private static final long TAG = 0x42;
    private static final long MISSING_TAG = 0x43;
    private static final long CANCEL_CONTEXT = 0x5EED;
    private static final long IDLE_TAGS = 1L << 40;

    private final Fabric fabric;
    private final Domain domainA;
    private final Domain domainB;
    private final AddressVector avA;
    private final AddressVector avB;
    private final CompletionQueue cqA;
    private final CompletionQueue cqB;
    private final Counter counterA;
    private final Counter counterB;
    private final Endpoint a;
    private final Endpoint b;
    private final MemoryRegion region;
    private final long dest;
    private final UnsafeBuffer tx = direct(SIZE);
    private final UnsafeBuffer rx = direct(SIZE);
    private final UnsafeBuffer operand = direct(SIZE);
    private final UnsafeBuffer compare = direct(SIZE);
    private final UnsafeBuffer result = direct(SIZE);
    private final UnsafeBuffer target = direct(4096);
    private final CompletionEntry entry = new CompletionEntry();
    private final CompletionErrorEntry errorEntry = new CompletionErrorEntry();
    private final long[] source = new long[1];

    /**
     * Open the pair over inproc.
     */
    public DataPathPair()
    {
        this(0);
    }

    /**
     * Open the pair with a given receive queue depth, over inproc.
     *
     * @param rxSize {@code rx_attr->size} of both endpoints (0: the provider's); B's CQ holds as many.
     */
    public DataPathPair(final int rxSize)
    {
        this("inproc", rxSize);
    }

    /**
     * Open the pair over a provider (two domains of one fabric; aeron: through the fabric's embedded media driver, by
     * UDP loopback or {@code aeron:ipc} as {@code jfabric.aeron.ipc} says).
     *
     * @param provider the provider's name.
     */
    public DataPathPair(final String provider)
    {
        this(provider, 0);
    }

    /**
     * Open the pair over a provider with a given receive queue depth.
     *
     * @param provider the provider's name.
     * @param rxSize   {@code rx_attr->size} of both endpoints (0: the provider's); B's CQ holds as many.
     */
    public DataPathPair(final String provider, final int rxSize)
    {
        final Info hints = Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC)
            .fabricAttr(FabricAttr.builder().provName(provider).build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build())
            .build();
        final Info found = Fabric.getInfo(hints).get(0);
        final Info info = 0 == rxSize ? found :
            found.toBuilder().rxAttr(found.rxAttr().toBuilder().size(rxSize).build()).build();
        fabric = Fabric.open(info);
        domainA = fabric.domain(info, "backoff");
        domainB = fabric.domain(info, "backoff");
        avA = domainA.addressVector(AvType.TABLE, 4);
        avB = domainB.addressVector(AvType.TABLE, 4);
        cqA = domainA.completionQueue(1024, CqFormat.TAGGED);
        cqB = domainB.completionQueue(Math.max(1024, rxSize), CqFormat.TAGGED);
        counterA = domainA.counter();
        counterB = domainB.counter();
        a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV)
            .bind(counterA, Flags.SEND | Flags.WRITE | Flags.READ).enable();
        b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV)
            .bind(counterB, Flags.RECV).enable();
        dest = avA.insert(b.name());
        avB.insert(a.name());
        region = domainB.registerMemory(target, 0, target.capacity(), Flags.REMOTE_READ | Flags.REMOTE_WRITE, KEY);
        for (int i = 0; i < SIZE; i++)
        {
            tx.putByte(i, (byte) (i + 1));
        }
        operand.putLong(0, 1);
    }

    private static UnsafeBuffer direct(final int length)
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(length));
    }

    private static void check(final int status, final String call)
    {
        if (0 != status)
        {
            throw new IllegalStateException(call + " returned " + status);
        }
    }

    /**
     * Read exactly {@code count} completions from {@code cq}, running the other domain's duty cycle between reads
     * ({@code cq.read} runs its own domain's).
     */
    private long await(final CompletionQueue cq, final Domain other, final int count)
    {
        long sum = 0;
        int got = 0;
        while (got < count)
        {
            other.progress();
            final int n = cq.read(entry);
            if (1 == n)
            {
                got++;
                sum += entry.len() + entry.context();
            }
            else if (n != Errno.EAGAIN.negated())
            {
                throw new IllegalStateException("cq.read returned " + n);
            }
        }
        return sum;
    }

    /**
     * {@code fi_trecv} at B, {@code fi_tsend} 8 B from A; reads B's receive and A's send completion.
     *
     * @return a value derived from the completions.
     */
    public long tsendTrecv()
    {
        check(b.trecv(rx, 0, SIZE, AddressVector.ADDR_UNSPEC, TAG, 0, 1), "trecv");
        check(a.tsend(tx, 0, SIZE, dest, TAG, 2), "tsend");
        return await(cqB, domainA, 1) + await(cqA, domainB, 1);
    }

    /**
     * {@code fi_recv} at B, {@code fi_send} 8 B from A; reads both completions.
     *
     * @return a value derived from the completions.
     */
    public long sendRecv()
    {
        check(b.recv(rx, 0, SIZE, AddressVector.ADDR_UNSPEC, 1), "recv");
        check(a.send(tx, 0, SIZE, dest, 2), "send");
        return await(cqB, domainA, 1) + await(cqA, domainB, 1);
    }

    /**
     * {@code fi_trecv} at B, {@code fi_tinject} 8 B from A (no send completion); reads B's receive completion.
     *
     * @return a value derived from the completion.
     */
    public long tinject()
    {
        check(b.trecv(rx, 0, SIZE, AddressVector.ADDR_UNSPEC, TAG, 0, 1), "trecv");
        check(a.tinject(tx, 0, SIZE, dest, TAG), "tinject");
        return await(cqB, domainA, 1);
    }

    /**
     * Post {@code count} tagged receives at B that no message of this pair matches (exact tags, distinct, each
     * older than every receive posted later), and run B's agent until they are in its matching engine.
     *
     * @param count receives to leave posted.
     */
    public void postIdleReceives(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            check(b.trecv(rx, 0, SIZE, AddressVector.ADDR_UNSPEC, IDLE_TAGS + i, 0, IDLE_TAGS + i), "trecv idle");
        }
        // The agent takes the receive ring in batches; more cycles than batches leaves none in the ring.
        for (int i = 0; i < count + 16; i++)
        {
            domainB.progress();
        }
    }

    /**
     * {@code fi_recv} at B, {@code fi_inject} 8 B from A; reads B's receive completion.
     *
     * @return a value derived from the completion.
     */
    public long inject()
    {
        check(b.recv(rx, 0, SIZE, AddressVector.ADDR_UNSPEC, 1), "recv");
        check(a.inject(tx, 0, SIZE, dest), "inject");
        return await(cqB, domainA, 1);
    }

    /**
     * {@code fi_trecv} at B, {@code fi_tsenddata} 8 B with remote CQ data from A; reads both completions.
     *
     * @return a value derived from the completions (including the CQ data).
     */
    public long tsenddata()
    {
        check(b.trecv(rx, 0, SIZE, AddressVector.ADDR_UNSPEC, TAG, 0, 1), "trecv");
        check(a.tsenddata(tx, 0, SIZE, 99, dest, TAG, 2), "tsenddata");
        final long sum = await(cqB, domainA, 1) + entry.data();
        return sum + await(cqA, domainB, 1);
    }

    /**
     * {@code fi_write} 8 B into B's region; reads A's completion (after the target's RMA_ACK).
     *
     * @return a value derived from the completion.
     */
    public long write()
    {
        check(a.write(tx, 0, SIZE, dest, 64, KEY, 3), "write");
        return await(cqA, domainB, 1);
    }

    /**
     * {@code fi_read} 8 B from B's region; reads A's completion.
     *
     * @return a value derived from the completion and the bytes read.
     */
    public long read()
    {
        check(a.read(rx, 0, SIZE, dest, 64, KEY, 4), "read");
        return await(cqA, domainB, 1) + rx.getLong(0);
    }

    /**
     * {@code fi_inject_write} 8 B into B's region (no completion): reads A's counter (SEND|WRITE|READ), posts, then
     * runs both duty cycles until the counter has moved past that value (the target's RMA_ACK).
     *
     * @return the counter.
     */
    public long injectWrite()
    {
        final long before = counterA.read();
        check(a.injectWrite(tx, 0, SIZE, dest, 128, KEY), "injectWrite");
        long value;
        while ((value = counterA.read()) <= before)
        {
            domainB.progress();
        }
        return value;
    }

    /**
     * {@code fi_atomic} SUM of one uint64 into B's region; reads A's completion.
     *
     * @return a value derived from the completion.
     */
    public long atomicSum()
    {
        check(a.atomic(operand, 0, 1, dest, 256, KEY, AtomicDatatype.UINT64, AtomicOp.SUM, 5), "atomic");
        return await(cqA, domainB, 1);
    }

    /**
     * {@code fi_fetch_atomic} SUM of one uint64; reads A's completion.
     *
     * @return a value derived from the completion and the fetched value.
     */
    public long fetchAtomicSum()
    {
        check(a.fetchAtomic(operand, 0, 1, result, 0, dest, 264, KEY, AtomicDatatype.UINT64, AtomicOp.SUM, 6),
            "fetchAtomic");
        return await(cqA, domainB, 1) + result.getLong(0);
    }

    /**
     * {@code fi_compare_atomic} CSWAP of one uint64 (the compare value is the current one, so it swaps); reads A's
     * completion.
     *
     * @return a value derived from the completion and the old value.
     */
    public long compareAtomicCswap()
    {
        compare.putLong(0, result.getLong(0));
        operand.putLong(0, result.getLong(0) + 1);
        check(a.compareAtomic(operand, 0, 1, compare, 0, result, 0, dest, 272, KEY, AtomicDatatype.UINT64,
            AtomicOp.CSWAP, 7), "compareAtomic");
        final long sum = await(cqA, domainB, 1);
        if (result.getLong(0) != compare.getLong(0))
        {
            throw new IllegalStateException("CSWAP old value " + result.getLong(0) + " != " + compare.getLong(0));
        }
        result.putLong(0, operand.getLong(0));
        operand.putLong(0, 1);
        return sum;
    }

    /**
     * kfabric {@code tsearch} for a tag nobody sent: {@code -ENOMSG} at once (manual progress).
     *
     * @return the search's answer.
     */
    public long tsearchMiss()
    {
        final int status = b.tsearch(AddressVector.ADDR_UNSPEC, MISSING_TAG, 0, 0, 8, entry, source);
        if (status != Errno.ENOMSG.negated())
        {
            throw new IllegalStateException("tsearch miss returned " + status);
        }
        return status;
    }

    /**
     * {@code fi_tinject} from A (A's duty cycle puts it in B's inbound ring), then kfabric {@code tsearch} at B with
     * DISCARD: a hit (1) that drops the unexpected message.
     *
     * @return the search's answer plus the source found.
     */
    public long tinjectTsearchHitDiscard()
    {
        check(a.tinject(tx, 0, SIZE, dest, TAG), "tinject");
        int status = 0;
        // One duty cycle of A usually moves the message into B's ring; at a ring's wrap point the drain stops at the
        // padding record and the message goes on the next cycle, so the search is retried after another one.
        for (int attempt = 0; attempt < 8 && 1 != status; attempt++)
        {
            domainA.progress();
            status = b.tsearch(AddressVector.ADDR_UNSPEC, TAG, 0, Flags.DISCARD, 9, entry, source);
            if (1 != status && status != Errno.ENOMSG.negated())
            {
                break;
            }
        }
        if (1 != status)
        {
            throw new IllegalStateException("tsearch hit returned " + status);
        }
        return status + source[0];
    }

    /**
     * {@code fi_cq_read} of an empty CQ: {@code -EAGAIN} (one duty cycle of B's agent with nothing to do).
     *
     * @return the read's answer.
     */
    public long cqReadEmpty()
    {
        final int status = cqB.read(entry);
        if (status != Errno.EAGAIN.negated())
        {
            throw new IllegalStateException("cq.read of an empty CQ returned " + status);
        }
        return status;
    }

    /**
     * {@code fi_trecv} at B, {@code fi_cancel} of it, {@code fi_cq_read} ({@code -EAVAIL}) and
     * {@code fi_cq_readerr} of the ECANCELED entry.
     *
     * @return a value derived from the error entry.
     */
    public long cancelReadErr()
    {
        check(b.trecv(rx, 0, SIZE, AddressVector.ADDR_UNSPEC, TAG, 0, CANCEL_CONTEXT), "trecv");
        check(b.cancel(CANCEL_CONTEXT), "cancel");
        final int status = cqB.read(entry);
        if (status != Errno.EAVAIL.negated())
        {
            throw new IllegalStateException("cq.read after cancel returned " + status);
        }
        final int n = cqB.readErr(errorEntry);
        if (1 != n || errorEntry.err() != Errno.ECANCELED.value() || errorEntry.context() != CANCEL_CONTEXT)
        {
            throw new IllegalStateException("cq.readErr returned " + n + " err " + errorEntry.err());
        }
        return errorEntry.context();
    }

    /**
     * {@code fi_cntr_read} plus {@code fi_cntr_readerr} (each runs one duty cycle of A's agent).
     *
     * @return the sum of both counts.
     */
    public long counterRead()
    {
        return counterA.read() + counterA.readErr();
    }

    /**
     * {@code fi_cntr_add} on B's counter (application-side add).
     *
     * @return the call's answer.
     */
    public long counterAdd()
    {
        return counterB.add(1);
    }

    /**
     * Close everything in order.
     */
    @Override
    public void close()
    {
        region.close();
        a.close();
        b.close();
        cqA.close();
        cqB.close();
        counterA.close();
        counterB.close();
        avA.close();
        avB.close();
        domainA.close();
        domainB.close();
        fabric.close();
    }
}
