package io.jfabric.provider.gni;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The {@code native_amo} requests of a domain's endpoints waiting for the agent ({@link GniEpOps#nativeAmo}): the
 * extension posts a native AX/FAX as the runtime's {@code FI_MSWAP} compare atomic (same operands, same target
 * checks, same completion path) after noting its context here; the back-end, preparing that MSWAP, takes the note and
 * hands the AMO unit the operands as given ({@code FAX(op1, op2)}) instead of MSWAP's mask encoding. A fixed table
 * of {@link #SLOTS} notes per endpoint; no allocation.
 * <p>
 * Threading: {@link #note} and {@link #drop} on application threads, {@link #take} on the domain agent's thread; the
 * note is published before the command that it names is written to the ring.
 */
final class GniNativeAmos
{
    /** Native requests an endpoint may have waiting at once. */
    static final int SLOTS = 32;

    private final AtomicIntegerArray types = new AtomicIntegerArray(GniName.MAX_ENDPOINTS * SLOTS);
    private final AtomicLongArray contexts = new AtomicLongArray(GniName.MAX_ENDPOINTS * SLOTS);

    /**
     * @return the slot noted, or -1 when the endpoint's slots are all taken.
     */
    int note(final int endpoint, final long context, final int type)
    {
        final int base = endpoint * SLOTS;
        for (int i = base; i < base + SLOTS; i++)
        {
            if (types.compareAndSet(i, 0, -1))
            {
                contexts.set(i, context);
                types.set(i, type);
                return i;
            }
        }
        return -1;
    }

    void drop(final int slot)
    {
        types.set(slot, 0);
    }

    /**
     * @return the native request type noted for that endpoint's operation context (the note is removed), or 0.
     */
    int take(final int endpoint, final long context)
    {
        if (endpoint < 0 || endpoint >= GniName.MAX_ENDPOINTS)
        {
            return 0;
        }
        final int base = endpoint * SLOTS;
        for (int i = base; i < base + SLOTS; i++)
        {
            final int type = types.get(i);
            if (type > 0 && contexts.get(i) == context)
            {
                types.set(i, 0);
                return type;
            }
        }
        return 0;
    }
}
