package io.jfabric.provider.gni;

import io.jfabric.aries.MemHandle;
import io.jfabric.aries.PostDescriptor;

/**
 * One initiator operation the back-end holds between {@code submit} and its completion: a copy of the command's
 * fields (the command view is only valid during {@code submit}), its phase, and its NIC resources (local
 * registrations, post descriptors), created on first use and reused.
 * <p>
 * Threading: the owning domain agent's thread only.
 */
final class GniOp
{
    static final int FREE = 0;
    /** Queued on its VC (connect, credits). */
    static final int QUEUED = 1;
    /** Eager SMSG sent; waiting for its local CQE. */
    static final int WAIT_SMSG = 2;
    /** Rendezvous START sent; waiting for the receiver's FIN. */
    static final int WAIT_FIN = 3;
    /** MR query sent; waiting for the target's answer. */
    static final int WAIT_MR = 4;
    /** FMA/BTE/AMO posts outstanding. */
    static final int WAIT_POSTS = 5;
    /** RMA done sent; waiting for the target's ack. */
    static final int WAIT_ACK = 6;
    /** Posted with {@code FI_MORE}: held in its endpoint's chain until a call without it ({@link GniMoreChains}). */
    static final int HELD = 7;

    static final int MAX_SEGMENTS = 8;

    final int id;
    final MemHandle[] handles = new MemHandle[MAX_SEGMENTS];
    final PostDescriptor[] posts = new PostDescriptor[MAX_SEGMENTS * 3];
    final long[] segmentAddress = new long[MAX_SEGMENTS];
    final long[] segmentLength = new long[MAX_SEGMENTS];
    int state = FREE;
    /**
     * The next operation of the same {@code FI_MORE} chain, or -1: while {@link #HELD}, the next held operation of
     * the endpoint; once posted, the next operation of the same chained FMA post (completed by the head's event).
     */
    int chainNext = -1;
    GniVc vc;
    int opcode;
    int endpoint;
    long peer;
    long flags;
    long tag;
    long data;
    long length;
    int segments;
    /** Its endpoint closed while it waited on its VC: it ends without reading its buffers. */
    boolean endpointClosed;
    long remoteAddress;
    long remoteKey;
    int atomicKind;
    int atomicCmd;
    int atomicDatatype;
    /**
     * The direction upstream's {@code gnix_ops_allowed} checks an atomic in ({@link GniPeerCaps#atomicAllowed}):
     * {@code FI_WRITE} for a non-fetching one and every {@code native_amo}, else {@code FI_READ}.
     */
    boolean atomicWrite;
    long operand;
    long compare;
    long resultAddress;
    boolean registered;
    int handleCount;
    int outstanding;
    /** Of {@link #outstanding}, the posts waiting for a TX descriptor ({@link GniTxDescriptors}). */
    int queuedPosts;
    int status;
    int failures;
    long targetRaw;
    int targetReg;
    /** RMA or atomic straight to the target's vMDH slot (no MR query, GniRegionTable). */
    boolean direct;
    /** The provider errno of a failure ({@code prov_errno}): {@code -FI_ECANCELED} for a transaction error. */
    int provErrno;
    /** Provider registrations the operation holds ({@link GniProviderRegistrations}). */
    int provReserved;
    final MemHandle targetHandle = new MemHandle();
    /** Unaligned read pieces to copy out of the bounce area when the posts are done. */
    long headCopyTo;
    int headCopyFrom;
    int headCopyLength;
    long tailCopyTo;
    int tailCopyFrom;
    int tailCopyLength;
    /** Pieces of a read into several buffers to copy out of the bounce area ({@link GniSplitRead}). */
    final long[] splitCopyTo = new long[MAX_SEGMENTS * 2];
    final int[] splitCopyFrom = new int[MAX_SEGMENTS * 2];
    final int[] splitCopyLength = new int[MAX_SEGMENTS * 2];
    int splitCopies;

    GniOp(final int id)
    {
        this.id = id;
    }

    MemHandle handle(final int index)
    {
        MemHandle h = handles[index];
        if (null == h)
        {
            h = new MemHandle();
            handles[index] = h;
        }
        return h;
    }

    PostDescriptor post(final int index)
    {
        PostDescriptor d = posts[index];
        if (null == d)
        {
            d = new PostDescriptor();
            posts[index] = d;
        }
        return d.reset();
    }
}
