package io.jfabric.loadtest;

import io.jfabric.Flags;

import java.util.Locale;

/**
 * The operation a load test times, one round trip each: a message echoed by the peer ({@link #MSG},
 * {@link #TAGGED}), or a one-sided operation that completes at the initiator once the target answered
 * ({@link #RMA_WRITE}, {@link #RMA_READ}, {@link #ATOMIC}: a fetching 64-bit sum).
 */
public enum OpClass
{
    /** {@code fi_send}/{@code fi_recv}, echoed. */
    MSG("msg", Flags.MSG),
    /** {@code fi_tsend}/{@code fi_trecv}, echoed. */
    TAGGED("tagged", Flags.TAGGED),
    /** {@code fi_write} into the peer's registered memory; completes on the target's acknowledgement. */
    RMA_WRITE("write", Flags.RMA),
    /** {@code fi_read} from the peer's registered memory; completes when the data arrived. */
    RMA_READ("read", Flags.RMA),
    /** {@code fi_fetch_atomic} {@code FI_SUM} of one {@code FI_UINT64}; completes with the old value. */
    ATOMIC("atomic", Flags.ATOMIC);

    private final String label;
    private final long caps;

    OpClass(final String label, final long caps)
    {
        this.label = label;
        this.caps = caps;
    }

    /**
     * @return the short name used on the command line and in reports.
     */
    public String label()
    {
        return label;
    }

    /**
     * @return the primary capability the operation needs ({@code FI_MSG}, {@code FI_TAGGED}, {@code FI_RMA},
     * {@code FI_ATOMIC}).
     */
    public long caps()
    {
        return caps;
    }

    /**
     * @return whether the peer echoes a message (two-sided) rather than the target's agent answering.
     */
    public boolean echoed()
    {
        return this == MSG || this == TAGGED;
    }

    /**
     * The class by its short name ({@code msg}, {@code tagged}, {@code write}, {@code read}, {@code atomic}); the
     * enum names ({@code RMA_WRITE}) and {@code rma-write}/{@code rma-read} are accepted too.
     *
     * @param name the name.
     * @return the class.
     * @throws IllegalArgumentException for an unknown name.
     */
    public static OpClass of(final String name)
    {
        final String n = name.toLowerCase(Locale.ROOT).replace('_', '-');
        for (final OpClass c : values())
        {
            if (c.label.equals(n) || c.name().toLowerCase(Locale.ROOT).replace('_', '-').equals(n))
            {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown message class '" + name + "' (msg, tagged, write, read, atomic)");
    }
}
