/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The storage of one completion queue: a ring of completion entries and a ring of error entries, written by one
 * domain agent and read by application threads. The one completion ring of the product.
 * <p>
 * Entries hold (context, flags, len, buf, data, tag, source fi_addr), stored together: eight longs of one
 * {@code long[]} per entry (the eighth unused), so a write and a read touch one 64-byte stretch of memory (two cache
 * lines at most, the array not being line-aligned) rather than one line per field. Error entries add (olen, err,
 * prov_errno) and may carry err_data bytes ({@code fi_cq_err_entry.err_data}: for example the source address of an
 * {@code FI_SOURCE_ERR} completion), kept per error slot by reference until the slot is reused; they are rare and
 * kept in parallel arrays. The positions (head, tail, error head and tail, read guard, reservations) live in a
 * direct buffer aligned to 128 bytes, each on its own 128-byte stretch with a stretch of padding before the first,
 * so that no position shares a cache line (or an adjacent-line prefetch pair) with another position or another
 * allocation that a different thread writes.
 * <p>
 * Threading: the {@code write*} methods are called by the single owning agent only; the producer position is
 * published with {@code putLongRelease} after the entry's fields, and readers load it with
 * {@code getLongVolatile} before reading fields (release/acquire pairing). Readers are serialised by a
 * compare-and-set guard, so any number of threads may read ({@code FI_THREAD_SAFE}). Nothing allocates after
 * construction except the err_data table, on the first error entry that carries err_data.
 */
public final class CompletionRing
{
    private static final int STRIDE = 128;
    private static final int HEAD = STRIDE;
    private static final int TAIL = 2 * STRIDE;
    private static final int ERR_HEAD = 3 * STRIDE;
    private static final int ERR_TAIL = 4 * STRIDE;
    private static final int READ_GUARD = 5 * STRIDE;
    private static final int RESERVED = 6 * STRIDE;
    private static final int POSITIONS_LENGTH = 7 * STRIDE;

    /** log2 of the longs per entry in {@link #entries}. */
    private static final int ENTRY_SHIFT = 3;
    private static final int CONTEXT = 0;
    private static final int FLAGS = 1;
    private static final int LEN = 2;
    private static final int BUF = 3;
    private static final int DATA = 4;
    private static final int TAG = 5;
    private static final int SRC = 6;

    private final UnsafeBuffer positions =
        new UnsafeBuffer(BufferUtil.allocateDirectAligned(POSITIONS_LENGTH, STRIDE));
    /**
     * The positions' first byte: every position is at a fixed offset below {@code POSITIONS_LENGTH} of memory this
     * ring owns, so it is read and written without Agrona's bounds check per access (the readers' empty looks are
     * most of a waiting thread's work).
     */
    private final long positionsAddress = positions.addressOffset();
    private final int size;
    private final int mask;
    /** Entry {@code i} is {@code entries[i << ENTRY_SHIFT] ..}: context, flags, len, buf, data, tag, source. */
    private final long[] entries;
    private final int errMask;
    private final long[] eContext;
    private final long[] eFlags;
    private final long[] eLen;
    private final long[] eBuf;
    private final long[] eData;
    private final long[] eTag;
    private final long[] eSrc;
    private final long[] eOlen;
    private final int[] eErr;
    private final int[] eProvErrno;
    /** Entries {@link #hasSpace()} keeps free (control path writes before publishing an endpoint; agent reads). */
    private int headroom;
    /** err_data per error slot, created on the first entry that carries some (error path). Agent writes only. */
    private byte[][] eErrData;

    /**
     * Create the storage for a queue of {@code size} entries (the application-visible bound); the ring holds
     * twice that, rounded to a power of two, so that unreserved completions (multi-recv segments) still fit.
     *
     * @param size the CQ size, 1..65536.
     */
    public CompletionRing(final int size)
    {
        this.size = size;
        final int capacity = BitUtil.findNextPositivePowerOfTwo(Math.max(2, size * 2));
        mask = capacity - 1;
        entries = new long[capacity << ENTRY_SHIFT];
        final int errCapacity = capacity;
        errMask = errCapacity - 1;
        eContext = new long[errCapacity];
        eFlags = new long[errCapacity];
        eLen = new long[errCapacity];
        eBuf = new long[errCapacity];
        eData = new long[errCapacity];
        eTag = new long[errCapacity];
        eSrc = new long[errCapacity];
        eOlen = new long[errCapacity];
        eErr = new int[errCapacity];
        eProvErrno = new int[errCapacity];
    }

    /**
     * @return the application-visible size.
     */
    public int size()
    {
        return size;
    }

    /**
     * Reserve room for one future completion (resource management). Any thread.
     *
     * @return true when reserved; false when {@link #size()} completions are already outstanding (EAGAIN).
     */
    public boolean reserve()
    {
        while (true)
        {
            final long current = acquire(RESERVED);
            if (current >= size)
            {
                return false;
            }
            // CAS: many posting threads race for the same budget.
            if (UnsafeApi.compareAndSetLong(null, positionsAddress + RESERVED, current, current + 1))
            {
                return true;
            }
        }
    }

    /**
     * Give back {@code count} reservations (clamped at zero). Any thread.
     *
     * @param count the number to release.
     */
    public void release(final int count)
    {
        while (true)
        {
            final long current = acquire(RESERVED);
            final long next = Math.max(0, current - count);
            if (current == next || UnsafeApi.compareAndSetLong(null, positionsAddress + RESERVED, current, next))
            {
                return;
            }
        }
    }

    /**
     * @return completions reserved and not yet read back: {@link #reserve()} answers false once this reaches
     * {@link #size()} (any thread; a snapshot).
     */
    public long reserved()
    {
        return acquire(RESERVED);
    }

    /**
     * Agent only: room for one more entry, beyond the kept headroom ({@link #keepHeadroom}).
     *
     * @return true when {@link #write} will succeed, with {@link #keepHeadroom} more writes after it.
     */
    public boolean hasSpace()
    {
        return plain(TAIL) - acquire(HEAD) <= mask - headroom;
    }

    /**
     * Keep {@code slots} entries free behind every {@link #hasSpace()} answer, for a completion that writes more
     * than one entry (a multi-recv release reported as a separate entry). Control path, before the endpoint that
     * needs it is published to the agent (that publication carries the value to the agent thread); it only grows.
     *
     * @param slots entries to keep, 0 or 1.
     */
    public void keepHeadroom(final int slots)
    {
        headroom = Math.max(headroom, Math.min(1, Math.max(0, slots)));
    }

    /**
     * Agent only: room for one more error entry.
     *
     * @return true when {@link #writeError} will succeed.
     */
    public boolean hasErrorSpace()
    {
        return plain(ERR_TAIL) - acquire(ERR_HEAD) <= errMask;
    }

    /**
     * Agent only: publish a completion.
     *
     * @param ctx      op context.
     * @param opFlags  completion flags.
     * @param length   length.
     * @param address  buffer address.
     * @param cqData   remote CQ data.
     * @param opTag    tag.
     * @param source   source fi_addr.
     * @return false when the ring is full (nothing written).
     */
    public boolean write(
        final long ctx,
        final long opFlags,
        final long length,
        final long address,
        final long cqData,
        final long opTag,
        final long source)
    {
        final long tail = plain(TAIL);
        if (tail - acquire(HEAD) > mask)
        {
            return false;
        }
        final long[] e = entries;
        final int i = ((int) tail & mask) << ENTRY_SHIFT;
        e[i + CONTEXT] = ctx;
        e[i + FLAGS] = opFlags;
        e[i + LEN] = length;
        e[i + BUF] = address;
        e[i + DATA] = cqData;
        e[i + TAG] = opTag;
        e[i + SRC] = source;
        // Release: the entry's fields become visible before the new tail.
        UnsafeApi.putLongRelease(null, positionsAddress + TAIL, tail + 1);
        return true;
    }

    /**
     * Agent only: publish an error completion.
     *
     * @param ctx      op context.
     * @param opFlags  completion flags.
     * @param length   length delivered.
     * @param address  buffer address.
     * @param cqData   remote CQ data.
     * @param opTag    tag.
     * @param overflow overflow length (ETRUNC).
     * @param err      positive errno value.
     * @param provErrno provider errno.
     * @param source   source fi_addr.
     * @return false when the error ring is full.
     */
    public boolean writeError(
        final long ctx,
        final long opFlags,
        final long length,
        final long address,
        final long cqData,
        final long opTag,
        final long overflow,
        final int err,
        final int provErrno,
        final long source)
    {
        return writeError(ctx, opFlags, length, address, cqData, opTag, overflow, err, provErrno, source, null);
    }

    /**
     * Agent only: publish an error completion that carries err_data ({@code fi_cq_err_entry.err_data}). The array is
     * kept by reference (not copied) until the slot is reused, so the caller must not change it afterwards. The
     * first such entry of a ring allocates the ring's err_data table (error path).
     *
     * @param ctx       op context.
     * @param opFlags   completion flags.
     * @param length    length.
     * @param address   buffer address.
     * @param cqData    remote CQ data.
     * @param opTag     tag.
     * @param overflow  olen.
     * @param err       positive errno.
     * @param provErrno provider errno.
     * @param source    source fi_addr.
     * @param errData   the err_data bytes (null: none).
     * @return false when the error ring is full (nothing written).
     */
    public boolean writeError(
        final long ctx,
        final long opFlags,
        final long length,
        final long address,
        final long cqData,
        final long opTag,
        final long overflow,
        final int err,
        final int provErrno,
        final long source,
        final byte[] errData)
    {
        final long tail = plain(ERR_TAIL);
        if (tail - acquire(ERR_HEAD) > errMask)
        {
            return false;
        }
        if (null == eErrData && null != errData)
        {
            eErrData = new byte[errMask + 1][];
        }
        final int i = (int) tail & errMask;
        eContext[i] = ctx;
        eFlags[i] = opFlags;
        eLen[i] = length;
        eBuf[i] = address;
        eData[i] = cqData;
        eTag[i] = opTag;
        eOlen[i] = overflow;
        eErr[i] = err;
        eProvErrno[i] = provErrno;
        eSrc[i] = source;
        if (null != eErrData)
        {
            eErrData[i] = errData;
        }
        // Release: a reader that sees the new tail sees every field above, err_data included.
        UnsafeApi.putLongRelease(null, positionsAddress + ERR_TAIL, tail + 1);
        return true;
    }

    /**
     * @return true when an error entry is waiting (any thread).
     */
    public boolean hasError()
    {
        return acquire(ERR_TAIL) > acquire(ERR_HEAD);
    }

    /**
     * @return the number of unread entries (any thread).
     */
    public long available()
    {
        return acquire(TAIL) - acquire(HEAD);
    }

    /**
     * Take the read guard; readers call it before {@link #readInto} and {@link #readErrorInto}.
     *
     * @return true when taken.
     */
    public boolean tryLockRead()
    {
        return UnsafeApi.compareAndSetInt(null, positionsAddress + READ_GUARD, 0, 1);
    }

    /**
     * Release the read guard (release store).
     */
    public void unlockRead()
    {
        UnsafeApi.putIntRelease(null, positionsAddress + READ_GUARD, 0);
    }

    /**
     * Read up to {@code count} entries into the parallel arrays of {@code sink}; the caller holds the read guard.
     *
     * @param sink  receives the entries from index 0.
     * @param count most entries.
     * @return entries read.
     */
    public int readInto(final CompletionSink sink, final int count)
    {
        final long head = plain(HEAD);
        // Acquire: pairs with the agent's release of the tail.
        final long tail = acquire(TAIL);
        final int n = (int) Math.min(count, tail - head);
        final long[] e = entries;
        for (int k = 0; k < n; k++)
        {
            final int i = ((int) (head + k) & mask) << ENTRY_SHIFT;
            sink.onCompletion(k, e[i + CONTEXT], e[i + FLAGS], e[i + LEN], e[i + BUF], e[i + DATA], e[i + TAG],
                e[i + SRC]);
        }
        if (n > 0)
        {
            UnsafeApi.putLongRelease(null, positionsAddress + HEAD, head + n);
            release(n);
        }
        return n;
    }

    /**
     * Read one error entry; the caller holds the read guard.
     *
     * @param sink receives it.
     * @return 1 when read, 0 when none waits.
     */
    public int readErrorInto(final CompletionSink sink)
    {
        final long head = plain(ERR_HEAD);
        if (acquire(ERR_TAIL) <= head)
        {
            return 0;
        }
        final int i = (int) head & errMask;
        sink.onError(eContext[i], eFlags[i], eLen[i], eBuf[i], eData[i], eTag[i], eOlen[i], eErr[i], eProvErrno[i],
            eSrc[i]);
        final byte[][] errData = eErrData;
        sink.onErrorData(null == errData ? null : errData[i]);
        UnsafeApi.putLongRelease(null, positionsAddress + ERR_HEAD, head + 1);
        release(1);
        return 1;
    }

    private long acquire(final int position)
    {
        return UnsafeApi.getLongVolatile(null, positionsAddress + position);
    }

    private long plain(final int position)
    {
        return UnsafeApi.getLong(null, positionsAddress + position);
    }

    /**
     * Receives entries from {@link #readInto} and {@link #readErrorInto}.
     */
    public interface CompletionSink
    {
        /**
         * One completion.
         *
         * @param index   position in this read.
         * @param context op context.
         * @param flags   flags.
         * @param len     length.
         * @param buf     buffer address.
         * @param data    CQ data.
         * @param tag     tag.
         * @param src     source fi_addr.
         */
        void onCompletion(int index, long context, long flags, long len, long buf, long data, long tag, long src);

        /**
         * One error entry.
         *
         * @param context   op context.
         * @param flags     flags.
         * @param len       length.
         * @param buf       buffer address.
         * @param data      CQ data.
         * @param tag       tag.
         * @param olen      overflow length.
         * @param err       positive errno.
         * @param provErrno provider errno.
         * @param src       source fi_addr.
         */
        void onError(
            long context, long flags, long len, long buf, long data, long tag, long olen, int err, int provErrno,
            long src);

        /**
         * The err_data of the error entry just given to {@link #onError}, called right after it. The array belongs
         * to the ring: copy what is needed during the call. The default ignores it.
         *
         * @param errData the bytes, or null when the entry carries none.
         */
        default void onErrorData(final byte[] errData)
        {
        }
    }
}
