package io.jfabric.aries;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * A logical endpoint ({@code gni_ep_handle_t}): created on a NIC with a source CQ, bound to one remote
 * (device address, inst id), it posts FMA/BTE/AMO transactions, exchanges one datagram at a time and, once
 * {@link #smsgInit} has paired its mailboxes, sends and receives SMSG messages with credits (GNI.md §1.3-1.5, §1.7).
 * <p>
 * Threading: every call takes the node's lock; see {@link AriesNode}.
 */
public final class GniEp
{
    /** Largest datagram, {@code GNI_DATAGRAM_MAXSIZE}. */
    public static final int DATAGRAM_MAX_SIZE = 128;
    /** {@code GNI_SMSG_ANY_TAG}. */
    public static final int SMSG_ANY_TAG = 0xFF;

    /** Post state: no datagram. */
    public static final int POST_STATE_NONE = 0;
    /** {@code GNI_POST_PENDING}. */
    public static final int POST_STATE_PENDING = 1;
    /** {@code GNI_POST_COMPLETED}. */
    public static final int POST_STATE_COMPLETED = 2;
    /** {@code GNI_POST_ERROR}. */
    public static final int POST_STATE_ERROR = 3;
    /** {@code GNI_POST_TIMEOUT} (never produced: uGNI datagrams are reliable, see ARIES.md). */
    public static final int POST_STATE_TIMEOUT = 4;
    /** {@code GNI_POST_TERMINATED}: cancelled. */
    public static final int POST_STATE_TERMINATED = 5;

    final GniNic nic;
    final GniCq srcCq;
    final AriesNode node;
    boolean bound;
    int remoteDevice;
    int remoteInst;
    long localEvent;
    long remoteEvent;
    int outstanding;
    long deferredUntil;

    int datagramState;
    long datagramId;
    boolean datagramSentRequest;
    final UnsafeBuffer datagramIn = new UnsafeBuffer(ByteBuffer.allocateDirect(DATAGRAM_MAX_SIZE));
    int datagramInLength;
    MutableDirectBuffer datagramOut;
    int datagramOutOffset;
    int datagramOutCapacity;
    int datagramOutLength;
    int datagramRemoteDevice;
    int datagramRemoteInst;

    boolean smsgReady;
    int credits;
    int remoteMsgMaxSize;
    int withheldCredits;
    int creditsToReturn;
    Mailbox mailbox;
    /** The wire's key of the bound remote, as the engine last resolved it, and the engine's peer-table version. */
    long peer = -1;
    int peerVersion = -1;
    final UnsafeBuffer message = new UnsafeBuffer(0, 0);
    int messageTag;

    GniEp(final GniNic nic, final GniCq srcCq)
    {
        this.nic = nic;
        this.srcCq = srcCq;
        this.node = nic.node;
    }

    /**
     * @return the NIC.
     */
    public GniNic nic()
    {
        return nic;
    }

    /**
     * @return the source CQ.
     */
    public GniCq srcCq()
    {
        return srcCq;
    }

    /**
     * @return transactions posted and not yet completed.
     */
    public int outstanding()
    {
        return outstanding;
    }

    /**
     * {@code GNI_EpBind}: bind to a remote endpoint.
     *
     * @param deviceAddress the remote device address.
     * @param instId        the remote inst id.
     * @return {@link GniRc#SUCCESS}, or {@link GniRc#INVALID_STATE} when already bound (unbind first).
     */
    public int bind(final int deviceAddress, final int instId)
    {
        node.lock();
        try
        {
            if (bound)
            {
                return GniRc.INVALID_STATE;
            }
            bound = true;
            remoteDevice = deviceAddress;
            remoteInst = instId;
            peerVersion = -1;
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_EpUnbind}: unbind, releasing the SMSG pairing.
     *
     * @return {@link GniRc#SUCCESS}; {@link GniRc#NOT_DONE} while transactions are outstanding (progress the CQ and
     * call again); {@link GniRc#INVALID_STATE} when not bound.
     */
    public int unbind()
    {
        node.lock();
        try
        {
            if (!bound)
            {
                return GniRc.INVALID_STATE;
            }
            if (outstanding > 0)
            {
                return GniRc.NOT_DONE;
            }
            if (smsgReady)
            {
                nic.removeSmsgEp(key(remoteDevice, remoteInst));
                smsgReady = false;
                creditsToReturn = 0;
                mailbox = null;
            }
            bound = false;
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * @return true when bound.
     */
    public boolean bound()
    {
        return bound;
    }

    /**
     * {@code GNI_EpSetEventData}: the values carried in the inst id field of this endpoint's local events and of
     * the remote events its transactions raise at the peer (24 bits each).
     *
     * @param local  local event data.
     * @param remote remote event data.
     * @return {@link GniRc#SUCCESS}.
     */
    public int setEventData(final long local, final long remote)
    {
        node.lock();
        try
        {
            localEvent = local;
            remoteEvent = remote;
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_EpPostDataWId}: post a datagram exchange. A bound endpoint targets its remote; an unbound one is a
     * wildcard that matches any bound datagram sent to its NIC from the same ptag and cookie. When matched, each
     * side's {@code in} lands in the other's {@code out} (a swap).
     *
     * @param in        bytes to send ({@code inLength} at {@code inOffset}); copied at post.
     * @param inOffset  offset.
     * @param inLength  0 to 128.
     * @param out       where the peer's bytes land; must stay valid until the post completes.
     * @param outOffset offset.
     * @param outLength 0 to 128: room for the peer's bytes (more are cut).
     * @param id        the caller's id, returned by the probes.
     * @return {@link GniRc#SUCCESS}; {@link GniRc#SIZE_ERROR} over 128 bytes; {@link GniRc#ERROR_RESOURCE} when a
     * datagram of this endpoint is outstanding.
     */
    public int postDataWId(
        final DirectBuffer in, final int inOffset, final int inLength, final MutableDirectBuffer out,
        final int outOffset, final int outLength, final long id)
    {
        node.lock();
        try
        {
            if (inLength < 0 || outLength < 0 || inLength > DATAGRAM_MAX_SIZE || outLength > DATAGRAM_MAX_SIZE)
            {
                return GniRc.SIZE_ERROR;
            }
            if (POST_STATE_NONE != datagramState)
            {
                return GniRc.ERROR_RESOURCE;
            }
            if (inLength > 0)
            {
                datagramIn.putBytes(0, in, inOffset, inLength);
            }
            datagramInLength = inLength;
            datagramOut = out;
            datagramOutOffset = outOffset;
            datagramOutCapacity = outLength;
            datagramOutLength = 0;
            datagramId = id;
            datagramState = POST_STATE_PENDING;
            datagramSentRequest = false;
            node.engine.postDatagram(this);
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_EpPostDataTestById}: the state of this endpoint's datagram; a final state
     * (COMPLETED, ERROR, TERMINATED) frees the endpoint for the next post.
     *
     * @param id the post's id.
     * @return {@link GniRc#SUCCESS} (state in {@link #postState()}) or {@link GniRc#NO_MATCH} when no datagram with
     * this id is posted.
     */
    public int postDataTestById(final long id)
    {
        node.lock();
        try
        {
            if (POST_STATE_NONE == datagramState || id != datagramId)
            {
                return GniRc.NO_MATCH;
            }
            lastPostState = datagramState;
            if (POST_STATE_PENDING != datagramState)
            {
                datagramState = POST_STATE_NONE;
                datagramOut = null;
                nic.datagramTaken(this);
            }
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    private int lastPostState;

    /**
     * @return the state {@link #postDataTestById} found.
     */
    public int postState()
    {
        return lastPostState;
    }

    /**
     * @return bytes the peer's datagram put into {@code out}.
     */
    public int postDataReceivedLength()
    {
        return datagramOutLength;
    }

    /**
     * @return device address of the peer that answered the last datagram.
     */
    public int postDataRemoteDeviceAddress()
    {
        return datagramRemoteDevice;
    }

    /**
     * @return inst id of the peer that answered the last datagram.
     */
    public int postDataRemoteInstId()
    {
        return datagramRemoteInst;
    }

    /**
     * {@code GNI_EpPostDataCancelById}: a pending datagram ends TERMINATED.
     *
     * @param id the post's id.
     * @return {@link GniRc#SUCCESS} or {@link GniRc#NO_MATCH} when no pending datagram has this id.
     */
    public int postDataCancelById(final long id)
    {
        node.lock();
        try
        {
            if (POST_STATE_PENDING != datagramState || id != datagramId)
            {
                return GniRc.NO_MATCH;
            }
            datagramState = POST_STATE_TERMINATED;
            nic.datagramPosts.remove(this);
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_SmsgInit}: pair this endpoint's mailbox ({@code local}: what the peer may send here) with the
     * peer's ({@code remote}: this endpoint's credits and largest message).
     *
     * @param local  this side's mailbox, with the CQ of its remote events.
     * @param remote the peer's mailbox attributes (as exchanged at connection set-up).
     * @return {@link GniRc#SUCCESS}; {@link GniRc#INVALID_STATE} when not bound or already initialised;
     * {@link GniRc#INVALID_PARAM} for credits below 1, sizes outside 1..65535 or a missing/foreign CQ.
     */
    public int smsgInit(final SmsgAttr local, final SmsgAttr remote)
    {
        node.lock();
        try
        {
            if (!bound || smsgReady)
            {
                return GniRc.INVALID_STATE;
            }
            if (null == local || null == remote || local.maxCredit < 1 || remote.maxCredit < 1 ||
                local.msgMaxSize < 1 || local.msgMaxSize > SmsgAttr.MAX_SIZE || remote.msgMaxSize < 1 ||
                remote.msgMaxSize > SmsgAttr.MAX_SIZE || null == local.rxCq || local.rxCq.nic() != nic)
            {
                return GniRc.INVALID_PARAM;
            }
            mailbox = new Mailbox(local.maxCredit, local.msgMaxSize, local.rxCq);
            credits = remote.maxCredit;
            remoteMsgMaxSize = remote.msgMaxSize;
            smsgReady = true;
            nic.addSmsgEp(key(remoteDevice, remoteInst), this);
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * @return SMSG credits left (messages that may still be sent before the peer releases some).
     */
    public int smsgCredits()
    {
        return credits;
    }

    /**
     * {@code GNI_SmsgSendWTag}: copy header and data into the peer's mailbox. A local SMSG event (msg id) follows
     * when the message is deposited; the peer gets a remote SMSG event.
     *
     * @param header       header bytes (may be null when {@code headerLength} is 0).
     * @param headerOffset offset.
     * @param headerLength bytes.
     * @param data         data bytes (may be null when {@code dataLength} is 0).
     * @param dataOffset   offset.
     * @param dataLength   bytes.
     * @param msgId        the caller's message id (32 bits).
     * @param tag          the tag, 0 to 254.
     * @return {@link GniRc#SUCCESS}; {@link GniRc#NOT_DONE} without a credit; {@link GniRc#ERROR_RESOURCE} when
     * header plus data exceed the peer's largest message (or the source CQ has no free entry);
     * {@link GniRc#INVALID_STATE} before {@link #smsgInit}; {@link GniRc#INVALID_PARAM} for a bad tag or length.
     */
    public int smsgSendWTag(
        final DirectBuffer header, final int headerOffset, final int headerLength, final DirectBuffer data,
        final int dataOffset, final int dataLength, final long msgId, final int tag)
    {
        node.lock();
        try
        {
            if (!smsgReady)
            {
                return GniRc.INVALID_STATE;
            }
            if (headerLength < 0 || dataLength < 0 || tag < 0 || tag >= SMSG_ANY_TAG)
            {
                return GniRc.INVALID_PARAM;
            }
            if (headerLength + dataLength > remoteMsgMaxSize)
            {
                return GniRc.ERROR_RESOURCE;
            }
            return node.engine.smsgSend(
                this, header, headerOffset, headerLength, data, dataOffset, dataLength, msgId, tag);
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_SmsgGetNextWTag}: the oldest message in this endpoint's mailbox; it stays current (and its credit
     * taken) until {@link #smsgRelease()}. Calling again before the release returns the same message.
     *
     * @param tag the tag wanted, or {@link #SMSG_ANY_TAG}.
     * @return {@link GniRc#SUCCESS} (the message in {@link #smsgMessage()}, its tag in {@link #smsgTag()});
     * {@link GniRc#NOT_DONE} when the mailbox is empty (or the next message is not visible yet);
     * {@link GniRc#NO_MATCH} when the oldest message has another tag; {@link GniRc#INVALID_STATE} before
     * {@link #smsgInit}.
     */
    public int smsgGetNextWTag(final int tag)
    {
        final Mailbox box = mailbox;
        if (smsgReady && null != box && box.tail == box.head)
        {
            // Empty: answered without the node's lock (a deposit made meanwhile is seen by the next call).
            return GniRc.NOT_DONE;
        }
        node.lock();
        try
        {
            if (!smsgReady)
            {
                return GniRc.INVALID_STATE;
            }
            final Mailbox mailbox = this.mailbox;
            if (mailbox.tail == mailbox.head)
            {
                return GniRc.NOT_DONE;
            }
            final int slot = mailbox.slot(mailbox.head);
            if (mailbox.visibleAtStep[slot] > node.engine.step)
            {
                return GniRc.NOT_DONE;
            }
            if (SMSG_ANY_TAG != tag && mailbox.tags[slot] != tag)
            {
                return GniRc.NO_MATCH;
            }
            message.wrap(mailbox.slots, mailbox.slotOffset(slot), mailbox.lengths[slot]);
            messageTag = mailbox.tags[slot];
            mailbox.current = true;
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * @return the current message (header then data), valid until {@link #smsgRelease()}.
     */
    public DirectBuffer smsgMessage()
    {
        return message;
    }

    /**
     * @return the current message's tag.
     */
    public int smsgTag()
    {
        return messageTag;
    }

    /**
     * {@code GNI_SmsgRelease}: free the current message's slot, returning its credit to the sender. Credits travel
     * back in batches of a quarter of the mailbox (at least 1), so a sender never has fewer than three quarters of
     * its credits unusable once the receiver has released everything.
     *
     * @return {@link GniRc#SUCCESS}; {@link GniRc#INVALID_STATE} when no message is current.
     */
    public int smsgRelease()
    {
        node.lock();
        try
        {
            if (!smsgReady || !mailbox.current)
            {
                return GniRc.INVALID_STATE;
            }
            mailbox.current = false;
            mailbox.head++;
            message.wrap(0, 0);
            node.engine.returnCredit(this);
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_PostFma}: an FMA PUT, GET or AMO.
     *
     * @param descriptor type {@code FMA_PUT}, {@code FMA_GET} or {@code AMO}.
     * @return see {@link #postRdma}; {@link GniRc#INVALID_PARAM} for another type.
     */
    public int postFma(final PostDescriptor descriptor)
    {
        return post(descriptor, false, false);
    }

    /**
     * {@code GNI_PostRdma}: a BTE PUT or GET (any size; moved in frames and completed once).
     *
     * @param descriptor type {@code RDMA_PUT} or {@code RDMA_GET}.
     * @return {@link GniRc#SUCCESS}; {@link GniRc#INVALID_STATE} when not bound; {@link GniRc#INVALID_PARAM} for a
     * wrong type, a zero-length GET/AMO, a local range outside its registration or an unknown AMO command;
     * {@link GniRc#ALIGNMENT_ERROR} for a GET whose remote address or length is not a multiple of 4, or an AMO
     * whose addresses are not aligned to its size; {@link GniRc#ERROR_RESOURCE} when the source CQ has no free
     * entry.
     */
    public int postRdma(final PostDescriptor descriptor)
    {
        return post(descriptor, true, false);
    }

    /**
     * {@code GNI_CtPostFma}: a chain of FMA PUTs/GETs linked by {@link PostDescriptor#next}, completed by one
     * event naming the head descriptor; any failing element fails the chain.
     *
     * @param head the first descriptor.
     * @return as {@link #postFma}, checked for every element before any is posted.
     */
    public int ctPostFma(final PostDescriptor head)
    {
        return post(head, false, true);
    }

    /**
     * {@code GNI_PostCqWrite}: deposit {@link PostDescriptor#firstOperand} (low 32 bits kept, see ARIES.md) as an
     * event in the destination CQ of the remote registration named by the descriptor's remote handle.
     *
     * @param descriptor type {@code CQWRITE}, remote handle set.
     * @return {@link GniRc#SUCCESS}, {@link GniRc#INVALID_STATE} when unbound, {@link GniRc#INVALID_PARAM} for
     * another type, {@link GniRc#ERROR_RESOURCE} when the source CQ is full.
     */
    public int postCqWrite(final PostDescriptor descriptor)
    {
        if (null == descriptor || TransactionKind.CQWRITE != descriptor.type)
        {
            return GniRc.INVALID_PARAM;
        }
        return post(descriptor, false, false);
    }

    private int post(final PostDescriptor descriptor, final boolean rdma, final boolean chained)
    {
        node.lock();
        try
        {
            if (!bound)
            {
                return GniRc.INVALID_STATE;
            }
            if (null == descriptor)
            {
                return GniRc.INVALID_PARAM;
            }
            for (PostDescriptor d = descriptor; null != d; d = chained ? d.next : null)
            {
                final int rc = check(d, rdma, chained);
                if (GniRc.SUCCESS != rc)
                {
                    return rc;
                }
            }
            if (!srcCq.reserve())
            {
                return GniRc.ERROR_RESOURCE;
            }
            node.engine.post(this, descriptor, chained);
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }

    private int check(final PostDescriptor d, final boolean rdma, final boolean chained)
    {
        final TransactionKind type = d.type;
        if (null == type)
        {
            return GniRc.INVALID_PARAM;
        }
        switch (type)
        {
            case FMA_PUT:
            case FMA_GET:
                if (rdma)
                {
                    return GniRc.INVALID_PARAM;
                }
                break;
            case RDMA_PUT:
            case RDMA_GET:
                if (!rdma || chained)
                {
                    return GniRc.INVALID_PARAM;
                }
                break;
            case AMO:
                if (rdma || chained)
                {
                    return GniRc.INVALID_PARAM;
                }
                if (!AmoCmd.valid(d.amoCmd))
                {
                    return GniRc.INVALID_PARAM;
                }
                final int size = AmoCmd.size(d.amoCmd);
                if (0 != (d.remoteAddr & (size - 1)) ||
                    (AmoCmd.fetching(d.amoCmd) && 0 != (d.localAddr & (size - 1))))
                {
                    return GniRc.ALIGNMENT_ERROR;
                }
                if (AmoCmd.fetching(d.amoCmd) && !nic.localRange(d.localMemHandle, d.localAddr, size))
                {
                    return GniRc.INVALID_PARAM;
                }
                return GniRc.SUCCESS;
            case CQWRITE:
                return rdma || chained ? GniRc.INVALID_PARAM : GniRc.SUCCESS;
            default:
                return GniRc.INVALID_PARAM;
        }
        final boolean get = TransactionKind.FMA_GET == type || TransactionKind.RDMA_GET == type;
        if (d.length < 0 || (get && 0 == d.length) || d.length > Integer.MAX_VALUE)
        {
            return GniRc.INVALID_PARAM;
        }
        if (get && (0 != (d.remoteAddr & 3) || 0 != (d.length & 3)))
        {
            return GniRc.ALIGNMENT_ERROR;
        }
        if (d.length > 0 && !nic.localRange(d.localMemHandle, d.localAddr, d.length))
        {
            return GniRc.INVALID_PARAM;
        }
        return GniRc.SUCCESS;
    }

    static long key(final int device, final int inst)
    {
        return ((long) device << 32) | (inst & 0xFFFF_FFFFL);
    }
}
