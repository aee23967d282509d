package io.jfabric.aries;

/**
 * A memory handle ({@code gni_mem_handle_t}): two 64-bit words that name a registration of a NIC, as a remote
 * peer presents them with every access. Mutable so that a provider can keep them in its own tables without
 * allocating; {@link GniNic#memRegister} fills one.
 * <pre>
 * qword1:  63 .......................... 12  11 ... 3   2    1    0
 *         +---------------------------------+--------+----+----+----+
 *         |   base virtual address >> 12    |   0    |RSV |VMDH| RO |
 *         +---------------------------------+--------+----+----+----+
 * qword2:  63 ...... 56  55 ....... 40  39 ............ 12  11 ...... 0
 *         +------------+--------------+-------------------+-----------+
 *         | check (8)  | generation   |  page count (28)  | index (12)|
 *         +------------+--------------+-------------------+-----------+
 * </pre>
 * {@code index} is the MDD index (or, with {@code VMDH}, the vMDH slot); {@code generation} changes every time
 * the index is reused so that a stale handle never names a later registration; {@code check} is a CRC-8
 * (polynomial 0x07) over qword1 and the low 56 bits of qword2, verified by the target NIC on every access.
 * Pages are 4096 bytes.
 * <p>
 * Threading: not thread-safe; a plain value holder.
 */
public final class MemHandle
{
    /** Bytes in a page: registrations cover whole pages. */
    public static final int PAGE_SIZE = 4096;
    /** Flag in qword1: registered {@code GNI_MEM_READ_ONLY}. */
    public static final long READ_ONLY = 1;
    /** Flag in qword1: a vMDH handle. */
    public static final long VMDH = 2;
    /** Flag in qword1: registered with {@code GNI_MEM_RESERVE_REGION}. */
    public static final long RESERVED = 4;

    private long qword1;
    private long qword2;

    /**
     * @return the first word.
     */
    public long qword1()
    {
        return qword1;
    }

    /**
     * @return the second word.
     */
    public long qword2()
    {
        return qword2;
    }

    /**
     * Set both words (e.g. from a handle a peer sent).
     *
     * @param qword1 the first word.
     * @param qword2 the second word.
     * @return this.
     */
    public MemHandle set(final long qword1, final long qword2)
    {
        this.qword1 = qword1;
        this.qword2 = qword2;
        return this;
    }

    /**
     * Copy another handle.
     *
     * @param other the source.
     * @return this.
     */
    public MemHandle set(final MemHandle other)
    {
        return set(other.qword1, other.qword2);
    }

    /**
     * @return the page-aligned base address.
     */
    public long baseAddress()
    {
        return baseAddress(qword1);
    }

    /**
     * @return the number of pages.
     */
    public long pages()
    {
        return pages(qword2);
    }

    /**
     * @return the MDD or vMDH index.
     */
    public int index()
    {
        return index(qword2);
    }

    /**
     * @return true for a read-only registration.
     */
    public boolean readOnly()
    {
        return 0 != (qword1 & READ_ONLY);
    }

    /**
     * @return true when the check value matches the rest of the handle.
     */
    public boolean checkValid()
    {
        return checkValid(qword1, qword2);
    }

    /**
     * Build the handle a peer derives from a scalable memory key (upstream's {@code _GNIX_CONVERT_MR_KEY} for vMDH
     * keys): the vMDH slot's index and nothing else. The target NIC resolves it through its vMDH table, and the
     * remote addresses of such an access are offsets from the start of the range registered in the slot (jfabric's
     * scalable registrations address by offset, {@code FI_MR_MMU_NOTIFY} without {@code FI_MR_VIRT_ADDR}).
     *
     * @param out   receives the handle.
     * @param index the vMDH slot (the key plus the owner's key offset), 0..4095.
     * @return {@code out}.
     */
    public static MemHandle vmdh(final MemHandle out, final int index)
    {
        encode(out, 0, 0, index, 0, VMDH);
        return out;
    }

    /**
     * @return true for a handle of {@link #vmdh}: a vMDH index with no base address and no pages.
     */
    static boolean indexOnly(final long qword1, final long qword2)
    {
        return 0 != (qword1 & VMDH) && 0 == baseAddress(qword1) && 0 == pages(qword2);
    }

    static long baseAddress(final long qword1)
    {
        return qword1 & ~(PAGE_SIZE - 1L);
    }

    static long pages(final long qword2)
    {
        return (qword2 >>> 12) & 0xFFF_FFFFL;
    }

    static int index(final long qword2)
    {
        return (int) (qword2 & 0xFFF);
    }

    static int generation(final long qword2)
    {
        return (int) ((qword2 >>> 40) & 0xFFFF);
    }

    static boolean checkValid(final long qword1, final long qword2)
    {
        return (qword2 >>> 56) == check(qword1, qword2);
    }

    /**
     * Encode a handle with its check value.
     */
    static void encode(
        final MemHandle out, final long base, final long pages, final int index, final int generation,
        final long flags)
    {
        final long q1 = (base & ~(PAGE_SIZE - 1L)) | (flags & 7);
        final long q2 = (index & 0xFFFL) | ((pages & 0xFFF_FFFFL) << 12) | ((generation & 0xFFFFL) << 40);
        out.set(q1, q2 | ((long) check(q1, q2) << 56));
    }

    static int check(final long qword1, final long qword2)
    {
        int crc = 0;
        for (int i = 0; i < 8; i++)
        {
            crc = crc8(crc, (int) (qword1 >>> (i * 8)) & 0xFF);
        }
        for (int i = 0; i < 7; i++)
        {
            crc = crc8(crc, (int) (qword2 >>> (i * 8)) & 0xFF);
        }
        return crc;
    }

    private static int crc8(final int crc, final int value)
    {
        int c = (crc ^ value) & 0xFF;
        for (int i = 0; i < 8; i++)
        {
            c = 0 != (c & 0x80) ? ((c << 1) ^ 0x07) & 0xFF : (c << 1) & 0xFF;
        }
        return c;
    }

    @Override
    public String toString()
    {
        return "MemHandle[" + Long.toHexString(qword1) + ":" + Long.toHexString(qword2) + "]";
    }
}
