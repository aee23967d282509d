package io.jfabric.provider.gni;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.OpsExtension;
import io.jfabric.spi.OpsType;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntPredicate;

/**
 * {@code FI_GNI_EP_OPS_1} of one endpoint (GNI.md §2.12): {@code GNI_HASH_TAG_IMPL} (u32, 0 = list, the default;
 * 1 = hashed list), written only before the endpoint is enabled ({@code EINVAL} afterwards) and read back. Tags are
 * matched by the runtime's matching engine whichever is chosen, so a receive posted with ignore bits is found
 * either way (upstream's hashed list missed it, GNI.md §2.16-1). Any other option is {@code EINVAL}. Plus
 * {@link #nativeAmo} (reach it with {@code OpenOps.as(GniEpOps.class)}).
 * <p>
 * Threading: thread-safe.
 */
public final class GniEpOps implements OpsExtension
{
    private final AtomicIntegerArray hashTagImpl;
    private final int endpoint;
    private final IntPredicate enabled;
    private final GniNativeAmos natives;
    private final UnsafeBuffer sink = new UnsafeBuffer(ByteBuffer.allocateDirect(8));

    GniEpOps(
        final AtomicIntegerArray hashTagImpl, final int endpoint, final IntPredicate enabled,
        final GniNativeAmos natives)
    {
        this.hashTagImpl = hashTagImpl;
        this.endpoint = endpoint;
        this.enabled = enabled;
        this.natives = natives;
    }

    /**
     * {@code native_amo}: one AX or FAX of the AMO unit at the target, {@code new = (old & op1) ^ op2} (on the low
     * 32 bits only for the {@code _S} forms), fetching forms returning the old value. Posted on {@code ep}, the
     * endpoint this extension was opened on, as the runtime's compare atomic ({@code FI_MSWAP}) and completed like
     * one: the target's range is checked the same way, the completion carries {@code FI_ATOMIC | FI_READ} (upstream
     * reported {@code FI_ATOMIC | FI_WRITE} for AX) and the read counter counts it. {@code context} must not be that
     * of another native request of this endpoint still waiting.
     *
     * @param ep            the endpoint.
     * @param operands      {@code op1} at {@code offset}, {@code op2} after it (4 bytes each for {@code _S}, else 8).
     * @param offset        where {@code op1} starts.
     * @param result        where FAX writes the old value (4 or 8 bytes); null for AX.
     * @param resultOffset  offset in {@code result}.
     * @param dest          the target.
     * @param remoteAddress the target address (aligned to the width), as for any atomic.
     * @param key           the target region's key.
     * @param reqType       {@link GniOps#GNIX_FAB_RQ_NAMO_AX}, {@code _AX_S}, {@code _FAX} or {@code _FAX_S}.
     * @param context       the operation's context.
     * @return 0 or a negative errno: {@code -EINVAL} for another request type or a FAX without result buffer,
     * {@code -EAGAIN} when {@link GniNativeAmos#SLOTS} native requests of the endpoint are waiting, else what the
     * compare atomic answers.
     */
    public int nativeAmo(
        final Endpoint ep, final DirectBuffer operands, final int offset, final DirectBuffer result,
        final int resultOffset, final long dest, final long remoteAddress, final long key, final int reqType,
        final long context)
    {
        if (reqType < GniOps.GNIX_FAB_RQ_NAMO_AX || reqType > GniOps.GNIX_FAB_RQ_NAMO_FAX_S || null == ep ||
            null == operands)
        {
            return Errno.EINVAL.negated();
        }
        final boolean fetch = reqType >= GniOps.GNIX_FAB_RQ_NAMO_FAX;
        if (fetch && null == result)
        {
            return Errno.EINVAL.negated();
        }
        final boolean narrow = GniOps.GNIX_FAB_RQ_NAMO_AX_S == reqType || GniOps.GNIX_FAB_RQ_NAMO_FAX_S == reqType;
        final int width = narrow ? 4 : 8;
        final int slot = natives.note(endpoint, context, reqType);
        if (slot < 0)
        {
            return Errno.EAGAIN.negated();
        }
        final int rc = ep.compareAtomic(operands, offset + width, 1, operands, offset, fetch ? result : sink,
            fetch ? resultOffset : 0, dest, remoteAddress, key, narrow ? AtomicDatatype.UINT32 : AtomicDatatype.UINT64,
            AtomicOp.MSWAP, context);
        if (rc < 0)
        {
            natives.drop(slot);
        }
        return rc;
    }

    @Override
    public String name()
    {
        return GniOps.FI_GNI_EP_OPS_1;
    }

    @Override
    public OpsType type(final int option)
    {
        return GniOps.GNI_HASH_TAG_IMPL == option ? OpsType.UINT32 : null;
    }

    @Override
    public long get(final int option)
    {
        return hashTagImpl.get(endpoint);
    }

    @Override
    public void set(final int option, final long value)
    {
        if (enabled.test(endpoint))
        {
            throw new FabricException(Errno.EINVAL, "gni ep ops: GNI_HASH_TAG_IMPL cannot change once the endpoint " +
                "is enabled");
        }
        if (value > 1)
        {
            throw new FabricException(Errno.EINVAL, "gni ep ops: GNI_HASH_TAG_IMPL " + value + " is neither 0 (list) " +
                "nor 1 (hashed list)");
        }
        hashTagImpl.set(endpoint, (int) value);
    }
}
