package io.jfabric.agent;

import io.jfabric.Flags;
import io.jfabric.ring.CommandQueue;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

import java.util.function.IntSupplier;

/**
 * Sends commands to a domain's agent: the one place where the application side encodes a command
 * ({@link CommandDescriptor} has the layout) into one of the domain's three command rings (control, receive, send).
 * {@code Endpoint}, {@code Domain} and {@code AddressVector} keep the API, the argument checks, the reservations and
 * the pins; each of their posts ends in one call here, which claims a record, writes every field and commits it.
 * The agent reads them back through {@link CommandFlyweight}.
 * <p>
 * Threading: safe for many producers at once. An instance holds only its rings, final; every field is written by a
 * static encoder into the record the calling thread claimed, so no mutable state is shared and nothing is allocated.
 * A data-path method answers {@code 0} once the command is committed, or {@code -1} when its ring is full (nothing
 * claimed: the caller undoes its reservation and pin and answers {@code -EAGAIN}). Control commands that must not
 * fail drive the domain's progress while the control ring is full.
 */
public final class CommandProxy
{
    /** Bits an application must not set: the command encoding's own. */
    public static final long INTERNAL_FLAGS =
        CommandDescriptor.FLAG_INLINE | CommandDescriptor.FLAG_IOV | CommandDescriptor.FLAG_RMA_IOV;
    /** A data-path method's answer: the ring is full, nothing was claimed. */
    public static final int RING_FULL = -1;

    private final CommandQueue controlRing;
    private final CommandQueue recvRing;
    private final CommandQueue sendRing;
    private final IntSupplier progress;

    /**
     * A proxy to one domain agent's rings ({@link DomainAgent#controlRing()}, {@link DomainAgent#recvRing()},
     * {@link DomainAgent#sendRing()}).
     *
     * @param controlRing the control ring.
     * @param recvRing    the receive ring.
     * @param sendRing    the send ring.
     * @param progress    drives the domain's progress once (manual progress) while the control ring is full;
     *                    answers the work done (created once by the domain, not per call).
     */
    public CommandProxy(
        final CommandQueue controlRing,
        final CommandQueue recvRing,
        final CommandQueue sendRing,
        final IntSupplier progress)
    {
        this.controlRing = controlRing;
        this.recvRing = recvRing;
        this.sendRing = sendRing;
        this.progress = progress;
    }

    // ---------------------------------------------------------------------------------------------------- send ring

    /**
     * A send or RMA over one buffer the agent reads (or, for a read, writes) in place.
     *
     * @param op           {@link CommandDescriptor#OP_SEND}, {@code OP_TSEND}, {@code OP_WRITE} or {@code OP_READ}.
     * @param endpoint     the endpoint's index.
     * @param flags        the operation's flags (internal bits are cleared).
     * @param context      the operation's context.
     * @param address      the buffer's native address.
     * @param length       its length.
     * @param peer         the destination's peer key.
     * @param tag          the tag (tagged sends) or remote address (RMA without a remote list).
     * @param data         remote CQ data.
     * @param key          the remote key (RMA).
     * @param pin          the {@link PinTable} slot of the buffer (or {@link PinTable#NONE}).
     * @param rmaCount     entries of a remote list (0: none).
     * @param rmaAddresses the remote list's addresses.
     * @param rmaLengths   the remote list's lengths.
     * @param rmaKeys      the remote list's keys.
     * @return 0, or {@link #RING_FULL}.
     */
    public int transmit(
        final int op,
        final int endpoint,
        final long flags,
        final long context,
        final long address,
        final long length,
        final long peer,
        final long tag,
        final long data,
        final long key,
        final int pin,
        final int rmaCount,
        final long[] rmaAddresses,
        final long[] rmaLengths,
        final long[] rmaKeys)
    {
        final int listBytes = remoteListBytes(rmaCount);
        final CommandQueue ring = sendRing;
        final int i = ring.tryClaim(op, CommandDescriptor.HEADER_LENGTH + listBytes);
        if (i < 0)
        {
            return RING_FULL;
        }
        final AtomicBuffer b = ring.buffer();
        b.putInt(i + CommandDescriptor.ENDPOINT_OFFSET, endpoint);
        b.putInt(i + CommandDescriptor.COUNT_OFFSET, 0);
        b.putInt(i + CommandDescriptor.PIN_OFFSET, pin + 1);
        b.putLong(i + CommandDescriptor.FLAGS_OFFSET, (flags & ~INTERNAL_FLAGS) |
            (listBytes > 0 ? CommandDescriptor.FLAG_RMA_IOV : 0));
        b.putLong(i + CommandDescriptor.CONTEXT_OFFSET, context);
        b.putLong(i + CommandDescriptor.ADDRESS_OFFSET, address);
        b.putLong(i + CommandDescriptor.LENGTH_OFFSET, length);
        b.putLong(i + CommandDescriptor.PEER_OFFSET, peer);
        b.putLong(i + CommandDescriptor.TAG_OFFSET, tag);
        b.putLong(i + CommandDescriptor.IGNORE_OFFSET, key);
        b.putLong(i + CommandDescriptor.DATA_OFFSET, data);
        if (listBytes > 0)
        {
            putRemoteList(b, i, CommandDescriptor.HEADER_LENGTH, rmaCount, rmaAddresses, rmaLengths, rmaKeys);
        }
        // commit is a release store of the record length: the agent sees every field written above.
        ring.commit(i);
        return 0;
    }

    /**
     * A send or RMA write whose payload is copied into the command now: from {@code buffer} at {@code offset}, or
     * (null buffer) from {@code iov}'s {@code count} whole buffers, or (no iov) from the native {@code address}.
     * With {@link Flags#INJECT} (the inject calls) the command carries no context and no pin: nothing completes.
     *
     * @param op           {@link CommandDescriptor#OP_SEND}, {@code OP_TSEND} or {@code OP_WRITE}.
     * @param endpoint     the endpoint's index.
     * @param flags        the operation's flags (internal bits are cleared).
     * @param context      the operation's context.
     * @param buffer       the payload's buffer, or null.
     * @param offset       the payload's offset in {@code buffer}.
     * @param address      the payload's native address (no buffer, no iov).
     * @param iov          the payload's buffers (no buffer), or null.
     * @param count        buffers in {@code iov}.
     * @param length       the payload's length (at most the inject size).
     * @param peer         the destination's peer key.
     * @param tag          the tag (tagged sends) or remote address (RMA without a remote list).
     * @param data         remote CQ data.
     * @param key          the remote key (RMA).
     * @param pin          the {@link PinTable} slot holding the context (ignored with {@link Flags#INJECT}).
     * @param rmaCount     entries of a remote list (0: none).
     * @param rmaAddresses the remote list's addresses.
     * @param rmaLengths   the remote list's lengths.
     * @param rmaKeys      the remote list's keys.
     * @return 0, or {@link #RING_FULL}.
     */
    public int transmitInline(
        final int op,
        final int endpoint,
        final long flags,
        final long context,
        final DirectBuffer buffer,
        final int offset,
        final long address,
        final DirectBuffer[] iov,
        final int count,
        final long length,
        final long peer,
        final long tag,
        final long data,
        final long key,
        final int pin,
        final int rmaCount,
        final long[] rmaAddresses,
        final long[] rmaLengths,
        final long[] rmaKeys)
    {
        final boolean silent = (flags & Flags.INJECT) != 0;
        final int listBytes = remoteListBytes(rmaCount);
        final int bytes = (int) length;
        final int listAt = CommandDescriptor.align8(CommandDescriptor.HEADER_LENGTH + bytes);
        final CommandQueue ring = sendRing;
        final int i = ring.tryClaim(op, listBytes > 0 ? listAt + listBytes : CommandDescriptor.HEADER_LENGTH + bytes);
        if (i < 0)
        {
            return RING_FULL;
        }
        final AtomicBuffer b = ring.buffer();
        b.putInt(i + CommandDescriptor.ENDPOINT_OFFSET, endpoint);
        b.putInt(i + CommandDescriptor.COUNT_OFFSET, bytes);
        b.putLong(i + CommandDescriptor.FLAGS_OFFSET, (flags & ~INTERNAL_FLAGS) |
            CommandDescriptor.FLAG_INLINE | (listBytes > 0 ? CommandDescriptor.FLAG_RMA_IOV : 0));
        b.putLong(i + CommandDescriptor.CONTEXT_OFFSET, silent ? 0 : context);
        b.putLong(i + CommandDescriptor.ADDRESS_OFFSET, 0);
        b.putLong(i + CommandDescriptor.LENGTH_OFFSET, length);
        b.putInt(i + CommandDescriptor.PIN_OFFSET, silent ? 0 : pin + 1);
        b.putLong(i + CommandDescriptor.PEER_OFFSET, peer);
        b.putLong(i + CommandDescriptor.TAG_OFFSET, tag);
        b.putLong(i + CommandDescriptor.IGNORE_OFFSET, key);
        b.putLong(i + CommandDescriptor.DATA_OFFSET, data);
        if (null != buffer)
        {
            b.putBytes(i + CommandDescriptor.HEADER_LENGTH, buffer, offset, bytes);
        }
        else if (null != iov)
        {
            int done = 0;
            for (int k = 0; k < count; k++)
            {
                b.putBytes(i + CommandDescriptor.HEADER_LENGTH + done, iov[k], 0, iov[k].capacity());
                done += iov[k].capacity();
            }
        }
        else if (bytes > 0)
        {
            UnsafeApi.copyMemory(null, address, b.byteArray(), b.addressOffset() + i + CommandDescriptor.HEADER_LENGTH,
                bytes);
        }
        if (listBytes > 0)
        {
            putRemoteList(b, i, listAt, rmaCount, rmaAddresses, rmaLengths, rmaKeys);
        }
        ring.commit(i);
        return 0;
    }

    /**
     * A send or RMA over whole buffers (an iov list the agent gathers from or scatters into).
     *
     * @param op           {@link CommandDescriptor#OP_SEND}, {@code OP_TSEND}, {@code OP_WRITE} or {@code OP_READ}.
     * @param endpoint     the endpoint's index.
     * @param flags        the operation's flags (internal bits and {@link Flags#INJECT} are cleared).
     * @param context      the operation's context.
     * @param iov          the buffers.
     * @param count        buffers in {@code iov}.
     * @param total        their bytes.
     * @param peer         the destination's peer key.
     * @param tag          the tag (tagged sends) or remote address (RMA without a remote list).
     * @param data         remote CQ data.
     * @param key          the remote key (RMA).
     * @param pin          the {@link PinTable} slot of the buffers.
     * @param rmaCount     entries of a remote list (0: none).
     * @param rmaAddresses the remote list's addresses.
     * @param rmaLengths   the remote list's lengths.
     * @param rmaKeys      the remote list's keys.
     * @return 0, or {@link #RING_FULL}.
     */
    public int transmitIov(
        final int op,
        final int endpoint,
        final long flags,
        final long context,
        final DirectBuffer[] iov,
        final int count,
        final long total,
        final long peer,
        final long tag,
        final long data,
        final long key,
        final int pin,
        final int rmaCount,
        final long[] rmaAddresses,
        final long[] rmaLengths,
        final long[] rmaKeys)
    {
        final int listBytes = remoteListBytes(rmaCount);
        final int listAt = CommandDescriptor.HEADER_LENGTH + count * CommandDescriptor.IOV_ENTRY_LENGTH;
        final CommandQueue ring = sendRing;
        final int i = ring.tryClaim(op, listAt + listBytes);
        if (i < 0)
        {
            return RING_FULL;
        }
        final AtomicBuffer b = ring.buffer();
        b.putInt(i + CommandDescriptor.ENDPOINT_OFFSET, endpoint);
        b.putInt(i + CommandDescriptor.COUNT_OFFSET, count);
        b.putInt(i + CommandDescriptor.PIN_OFFSET, pin + 1);
        b.putLong(i + CommandDescriptor.FLAGS_OFFSET, ((flags & ~INTERNAL_FLAGS) & ~Flags.INJECT) |
            CommandDescriptor.FLAG_IOV | (listBytes > 0 ? CommandDescriptor.FLAG_RMA_IOV : 0));
        b.putLong(i + CommandDescriptor.CONTEXT_OFFSET, context);
        b.putLong(i + CommandDescriptor.ADDRESS_OFFSET, 0);
        b.putLong(i + CommandDescriptor.LENGTH_OFFSET, total);
        b.putLong(i + CommandDescriptor.PEER_OFFSET, peer);
        b.putLong(i + CommandDescriptor.TAG_OFFSET, tag);
        b.putLong(i + CommandDescriptor.IGNORE_OFFSET, key);
        b.putLong(i + CommandDescriptor.DATA_OFFSET, data);
        putIovEntries(b, i + CommandDescriptor.HEADER_LENGTH, iov, count);
        if (listBytes > 0)
        {
            putRemoteList(b, i, listAt, rmaCount, rmaAddresses, rmaLengths, rmaKeys);
        }
        ring.commit(i);
        return 0;
    }

    /**
     * An atomic over one operand vector (copied into the command when {@code inject}), with result and compare
     * vectors at native addresses (0: none).
     *
     * @param endpoint       the endpoint's index.
     * @param flags          the operation's flags (internal bits are cleared).
     * @param inject         the operands are copied into the command.
     * @param context        the operation's context.
     * @param operands       the operands' buffer (read when {@code inject}).
     * @param offset         the operands' offset in {@code operands}.
     * @param operandAddress the operands' native address (not {@code inject}; 0 for none).
     * @param count          elements.
     * @param bytes          the operands' bytes.
     * @param atomicCode     {@link CommandDescriptor#atomicCode}.
     * @param resultAddress  the results' native address, or 0.
     * @param compareAddress the compare values' native address, or 0.
     * @param peer           the destination's peer key.
     * @param remoteAddress  the remote address (no remote list).
     * @param key            the remote key.
     * @param pin            the {@link PinTable} slot (or {@link PinTable#NONE}).
     * @param rmaCount       entries of a remote list (0: none).
     * @param rmaAddresses   the remote list's addresses.
     * @param rmaLengths     the remote list's lengths.
     * @param rmaKeys        the remote list's keys.
     * @return 0, or {@link #RING_FULL}.
     */
    public int atomic(
        final int endpoint,
        final long flags,
        final boolean inject,
        final long context,
        final DirectBuffer operands,
        final int offset,
        final long operandAddress,
        final int count,
        final int bytes,
        final long atomicCode,
        final long resultAddress,
        final long compareAddress,
        final long peer,
        final long remoteAddress,
        final long key,
        final int pin,
        final int rmaCount,
        final long[] rmaAddresses,
        final long[] rmaLengths,
        final long[] rmaKeys)
    {
        final int listBytes = remoteListBytes(rmaCount);
        final int listAt = CommandDescriptor.align8(CommandDescriptor.ATOMIC_HEADER_LENGTH + (inject ? bytes : 0));
        final CommandQueue ring = sendRing;
        final int i = ring.tryClaim(CommandDescriptor.OP_ATOMIC, listAt + listBytes);
        if (i < 0)
        {
            return RING_FULL;
        }
        final AtomicBuffer b = ring.buffer();
        b.putInt(i + CommandDescriptor.ENDPOINT_OFFSET, endpoint);
        b.putInt(i + CommandDescriptor.COUNT_OFFSET, count);
        b.putInt(i + CommandDescriptor.PIN_OFFSET, pin + 1);
        b.putLong(i + CommandDescriptor.FLAGS_OFFSET, (flags & ~INTERNAL_FLAGS) |
            (inject ? CommandDescriptor.FLAG_INLINE : 0) | (listBytes > 0 ? CommandDescriptor.FLAG_RMA_IOV : 0));
        b.putLong(i + CommandDescriptor.CONTEXT_OFFSET, context);
        b.putLong(i + CommandDescriptor.ADDRESS_OFFSET, operandAddress);
        b.putLong(i + CommandDescriptor.LENGTH_OFFSET, bytes);
        b.putLong(i + CommandDescriptor.PEER_OFFSET, peer);
        b.putLong(i + CommandDescriptor.TAG_OFFSET, remoteAddress);
        b.putLong(i + CommandDescriptor.IGNORE_OFFSET, key);
        b.putLong(i + CommandDescriptor.DATA_OFFSET, atomicCode);
        b.putLong(i + CommandDescriptor.RESULT_ADDRESS_OFFSET, resultAddress);
        b.putLong(i + CommandDescriptor.COMPARE_ADDRESS_OFFSET, compareAddress);
        if (inject)
        {
            b.putBytes(i + CommandDescriptor.ATOMIC_HEADER_LENGTH, operands, offset, bytes);
        }
        if (listBytes > 0)
        {
            putRemoteList(b, i, listAt, rmaCount, rmaAddresses, rmaLengths, rmaKeys);
        }
        ring.commit(i);
        return 0;
    }

    /**
     * An atomic with operands, compare values and results as iovs: the command carries segment lists (the agent
     * gathers operands and compare values and scatters the answer into the results), or with {@code inject} the
     * operands gathered into the command. Layout after the atomic header: inline operands or the operand, compare
     * and result lists; then the remote list.
     *
     * @param endpoint      the endpoint's index.
     * @param flags         the operation's flags (internal bits are cleared).
     * @param inject        the operands are copied into the command.
     * @param context       the operation's context.
     * @param operands      the operand buffers, or null ({@code operandCount} 0) for none (atomic read).
     * @param operandCount  buffers in {@code operands}.
     * @param compare       the compare buffers, or null for none.
     * @param compareCount  buffers in {@code compare}.
     * @param result        the result buffers, or null for none.
     * @param resultCount   buffers in {@code result}.
     * @param count         elements.
     * @param bytes         bytes of the operand (or, without operands, result) vector.
     * @param atomicCode    {@link CommandDescriptor#atomicCode}.
     * @param peer          the destination's peer key.
     * @param remoteAddress the remote address (no remote list).
     * @param key           the remote key.
     * @param pin           the {@link PinTable} slot (or {@link PinTable#NONE}).
     * @param rmaCount      entries of a remote list (0: none).
     * @param rmaAddresses  the remote list's addresses.
     * @param rmaLengths    the remote list's lengths.
     * @param rmaKeys       the remote list's keys.
     * @return 0, or {@link #RING_FULL}.
     */
    public int atomicIov(
        final int endpoint,
        final long flags,
        final boolean inject,
        final long context,
        final DirectBuffer[] operands,
        final int operandCount,
        final DirectBuffer[] compare,
        final int compareCount,
        final DirectBuffer[] result,
        final int resultCount,
        final int count,
        final long bytes,
        final long atomicCode,
        final long peer,
        final long remoteAddress,
        final long key,
        final int pin,
        final int rmaCount,
        final long[] rmaAddresses,
        final long[] rmaLengths,
        final long[] rmaKeys)
    {
        final int listBytes = remoteListBytes(rmaCount);
        final boolean noOperands = null == operands || 0 == operandCount;
        int at = CommandDescriptor.ATOMIC_HEADER_LENGTH;
        final int operandList = inject || noOperands ? 0 : at;
        at += inject ? CommandDescriptor.align8((int) bytes) : (noOperands ? 0 : listLength(operandCount));
        final int compareList = null != compare ? at : 0;
        at += 0 == compareList ? 0 : listLength(compareCount);
        final int resultList = null != result ? at : 0;
        at += 0 == resultList ? 0 : listLength(resultCount);
        final int remoteAt = at;
        final CommandQueue ring = sendRing;
        final int i = ring.tryClaim(CommandDescriptor.OP_ATOMIC, remoteAt + listBytes);
        if (i < 0)
        {
            return RING_FULL;
        }
        final AtomicBuffer b = ring.buffer();
        b.putInt(i + CommandDescriptor.ENDPOINT_OFFSET, endpoint);
        b.putInt(i + CommandDescriptor.COUNT_OFFSET, count);
        b.putInt(i + CommandDescriptor.PIN_OFFSET, pin + 1);
        b.putLong(i + CommandDescriptor.FLAGS_OFFSET, (flags & ~INTERNAL_FLAGS) |
            (inject ? CommandDescriptor.FLAG_INLINE : CommandDescriptor.FLAG_IOV) |
            (listBytes > 0 ? CommandDescriptor.FLAG_RMA_IOV : 0));
        b.putLong(i + CommandDescriptor.CONTEXT_OFFSET, context);
        b.putLong(i + CommandDescriptor.ADDRESS_OFFSET, operandList);
        b.putLong(i + CommandDescriptor.LENGTH_OFFSET, bytes);
        b.putLong(i + CommandDescriptor.PEER_OFFSET, peer);
        b.putLong(i + CommandDescriptor.TAG_OFFSET, remoteAddress);
        b.putLong(i + CommandDescriptor.IGNORE_OFFSET, key);
        b.putLong(i + CommandDescriptor.DATA_OFFSET, atomicCode);
        b.putLong(i + CommandDescriptor.RESULT_ADDRESS_OFFSET, resultList);
        b.putLong(i + CommandDescriptor.COMPARE_ADDRESS_OFFSET, compareList);
        if (inject)
        {
            // INJECT: the operands are copied now, gathered into the command.
            int done = 0;
            for (int k = 0; k < operandCount; k++)
            {
                b.putBytes(i + CommandDescriptor.ATOMIC_HEADER_LENGTH + done, operands[k], 0, operands[k].capacity());
                done += operands[k].capacity();
            }
        }
        else if (0 != operandList)
        {
            putList(b, i + operandList, operands, operandCount);
        }
        if (0 != compareList)
        {
            putList(b, i + compareList, compare, compareCount);
        }
        if (0 != resultList)
        {
            putList(b, i + resultList, result, resultCount);
        }
        if (listBytes > 0)
        {
            putRemoteList(b, i, remoteAt, rmaCount, rmaAddresses, rmaLengths, rmaKeys);
        }
        ring.commit(i);
        return 0;
    }

    // ------------------------------------------------------------------------------------------------- receive ring

    /**
     * A receive into one buffer (or a multi-recv buffer).
     *
     * @param op       {@link CommandDescriptor#OP_RECV} or {@code OP_TRECV}.
     * @param endpoint the endpoint's index.
     * @param flags    the receive's flags (internal bits are cleared).
     * @param context  the receive's context.
     * @param address  the buffer's native address.
     * @param length   its length.
     * @param src      the source fi_addr, or ADDR_UNSPEC.
     * @param tag      the tag.
     * @param ignore   the ignore mask.
     * @param pin      the {@link PinTable} slot of the buffer (or {@link PinTable#NONE}).
     * @return 0, or {@link #RING_FULL}.
     */
    public int receive(
        final int op,
        final int endpoint,
        final long flags,
        final long context,
        final long address,
        final long length,
        final long src,
        final long tag,
        final long ignore,
        final int pin)
    {
        final CommandQueue ring = recvRing;
        final int i = ring.tryClaim(op, CommandDescriptor.HEADER_LENGTH);
        if (i < 0)
        {
            return RING_FULL;
        }
        final AtomicBuffer b = ring.buffer();
        b.putInt(i + CommandDescriptor.ENDPOINT_OFFSET, endpoint);
        b.putInt(i + CommandDescriptor.COUNT_OFFSET, 0);
        b.putInt(i + CommandDescriptor.PIN_OFFSET, pin + 1);
        b.putLong(i + CommandDescriptor.FLAGS_OFFSET, flags & ~INTERNAL_FLAGS);
        b.putLong(i + CommandDescriptor.CONTEXT_OFFSET, context);
        b.putLong(i + CommandDescriptor.ADDRESS_OFFSET, address);
        b.putLong(i + CommandDescriptor.LENGTH_OFFSET, length);
        b.putLong(i + CommandDescriptor.PEER_OFFSET, src);
        b.putLong(i + CommandDescriptor.TAG_OFFSET, tag);
        b.putLong(i + CommandDescriptor.IGNORE_OFFSET, ignore);
        b.putLong(i + CommandDescriptor.DATA_OFFSET, 0);
        ring.commit(i);
        return 0;
    }

    /**
     * A receive scattering into several whole buffers.
     *
     * @param op       {@link CommandDescriptor#OP_RECV} or {@code OP_TRECV}.
     * @param endpoint the endpoint's index.
     * @param flags    the receive's flags (internal bits are cleared).
     * @param context  the receive's context.
     * @param iov      the buffers.
     * @param count    buffers in {@code iov}.
     * @param total    their bytes.
     * @param src      the source fi_addr, or ADDR_UNSPEC.
     * @param tag      the tag.
     * @param ignore   the ignore mask.
     * @param pin      the {@link PinTable} slot of the buffers.
     * @return 0, or {@link #RING_FULL}.
     */
    public int receiveIov(
        final int op,
        final int endpoint,
        final long flags,
        final long context,
        final DirectBuffer[] iov,
        final int count,
        final long total,
        final long src,
        final long tag,
        final long ignore,
        final int pin)
    {
        final CommandQueue ring = recvRing;
        final int i = ring.tryClaim(op, CommandDescriptor.HEADER_LENGTH + count * CommandDescriptor.IOV_ENTRY_LENGTH);
        if (i < 0)
        {
            return RING_FULL;
        }
        final AtomicBuffer b = ring.buffer();
        b.putInt(i + CommandDescriptor.ENDPOINT_OFFSET, endpoint);
        b.putInt(i + CommandDescriptor.COUNT_OFFSET, count);
        b.putInt(i + CommandDescriptor.PIN_OFFSET, pin + 1);
        b.putLong(i + CommandDescriptor.FLAGS_OFFSET, (flags & ~INTERNAL_FLAGS) | CommandDescriptor.FLAG_IOV);
        b.putLong(i + CommandDescriptor.CONTEXT_OFFSET, context);
        b.putLong(i + CommandDescriptor.ADDRESS_OFFSET, 0);
        b.putLong(i + CommandDescriptor.LENGTH_OFFSET, total);
        b.putLong(i + CommandDescriptor.PEER_OFFSET, src);
        b.putLong(i + CommandDescriptor.TAG_OFFSET, tag);
        b.putLong(i + CommandDescriptor.IGNORE_OFFSET, ignore);
        b.putLong(i + CommandDescriptor.DATA_OFFSET, 0);
        putIovEntries(b, i + CommandDescriptor.HEADER_LENGTH, iov, count);
        ring.commit(i);
        return 0;
    }

    /**
     * A kfabric tsearch answered as a completion.
     *
     * @param endpoint the endpoint's index.
     * @param flags    CLAIM, DISCARD or 0.
     * @param context  the search's context.
     * @param src      the source fi_addr, or ADDR_UNSPEC.
     * @param tag      the tag.
     * @param ignore   the ignore mask.
     * @return 0, or {@link #RING_FULL}.
     */
    public int tsearch(
        final int endpoint, final long flags, final long context, final long src, final long tag, final long ignore)
    {
        final CommandQueue ring = recvRing;
        final int i = ring.tryClaim(CommandDescriptor.OP_TSEARCH, CommandDescriptor.HEADER_LENGTH);
        if (i < 0)
        {
            return RING_FULL;
        }
        final AtomicBuffer b = ring.buffer();
        b.putInt(i + CommandDescriptor.ENDPOINT_OFFSET, endpoint);
        b.putInt(i + CommandDescriptor.PIN_OFFSET, 0);
        b.putLong(i + CommandDescriptor.FLAGS_OFFSET, flags);
        b.putLong(i + CommandDescriptor.CONTEXT_OFFSET, context);
        b.putLong(i + CommandDescriptor.PEER_OFFSET, src);
        b.putLong(i + CommandDescriptor.TAG_OFFSET, tag);
        b.putLong(i + CommandDescriptor.IGNORE_OFFSET, ignore);
        ring.commit(i);
        return 0;
    }

    // ------------------------------------------------------------------------------------------------- control ring

    /**
     * Set an endpoint's FI_OPT_MIN_MULTI_RECV (waits for room in the control ring).
     *
     * @param endpoint the endpoint's index.
     * @param value    the minimum.
     */
    public void minMultiRecv(final int endpoint, final long value)
    {
        final CommandQueue ring = controlRing;
        final int i = claimControl(CommandDescriptor.OP_MIN_MULTI_RECV, CommandDescriptor.HEADER_LENGTH);
        ring.buffer().putInt(i + CommandDescriptor.ENDPOINT_OFFSET, endpoint);
        ring.buffer().putLong(i + CommandDescriptor.LENGTH_OFFSET, value);
        ring.commit(i);
    }

    /**
     * An address vector change (waits for room in the control ring).
     *
     * @param opcode {@link CommandDescriptor#OP_AV_INSERT} or {@code OP_AV_REMOVE}.
     * @param avId   the address vector's id.
     * @param key    the peer key.
     * @param fiAddr the fi_addr.
     */
    public void addressVectorChange(final int opcode, final long avId, final long key, final long fiAddr)
    {
        final CommandQueue ring = controlRing;
        final int index = claimControl(opcode, CommandDescriptor.HEADER_LENGTH);
        final AtomicBuffer buffer = ring.buffer();
        buffer.putInt(index + CommandDescriptor.ENDPOINT_OFFSET, -1);
        buffer.putLong(index + CommandDescriptor.CONTEXT_OFFSET, avId);
        buffer.putLong(index + CommandDescriptor.PEER_OFFSET, key);
        buffer.putLong(index + CommandDescriptor.TAG_OFFSET, fiAddr);
        ring.commit(index);
    }

    /**
     * Register memory or close a region (waits for room in the control ring); the agent answers in its reply
     * slots under {@code sequence}.
     *
     * @param opcode   {@link CommandDescriptor#OP_MR_REG} or {@code OP_MR_CLOSE}.
     * @param address  the region's native address (one buffer).
     * @param length   its length.
     * @param access   the access flags.
     * @param key      the requested key (registration) or the region's key (close).
     * @param iov      the region's buffers, or null.
     * @param count    buffers in {@code iov}.
     * @param sequence the reply sequence.
     */
    public void memoryRegion(
        final int opcode,
        final long address,
        final long length,
        final long access,
        final long key,
        final DirectBuffer[] iov,
        final int count,
        final long sequence)
    {
        final CommandQueue ring = controlRing;
        final int index = claimControl(
            opcode, CommandDescriptor.HEADER_LENGTH + count * CommandDescriptor.IOV_ENTRY_LENGTH);
        final AtomicBuffer b = ring.buffer();
        b.putInt(index + CommandDescriptor.ENDPOINT_OFFSET, -1);
        b.putInt(index + CommandDescriptor.COUNT_OFFSET, count);
        putIovEntries(b, index + CommandDescriptor.HEADER_LENGTH, iov, count);
        b.putLong(index + CommandDescriptor.ADDRESS_OFFSET, address);
        b.putLong(index + CommandDescriptor.LENGTH_OFFSET, length);
        b.putLong(index + CommandDescriptor.FLAGS_OFFSET, access);
        b.putLong(index + CommandDescriptor.TAG_OFFSET, key);
        b.putLong(index + CommandDescriptor.DATA_OFFSET, sequence);
        ring.commit(index);
    }

    /**
     * Cancel a posted receive, once the receives claimed in the receive ring before this call are posted.
     *
     * @param endpoint the endpoint's index.
     * @param context  the receive's context.
     * @param sequence the reply sequence.
     * @return 0, or {@link #RING_FULL}.
     */
    public int cancel(final int endpoint, final long context, final long sequence)
    {
        final CommandQueue ring = controlRing;
        // Every receive claimed in the receive ring before this point is matched or posted before the cancel.
        final long until = recvRing.producerPosition();
        final int index = ring.tryClaim(CommandDescriptor.OP_CANCEL, CommandDescriptor.HEADER_LENGTH);
        if (index < 0)
        {
            return RING_FULL;
        }
        final AtomicBuffer b = ring.buffer();
        b.putInt(index + CommandDescriptor.ENDPOINT_OFFSET, endpoint);
        b.putLong(index + CommandDescriptor.CONTEXT_OFFSET, context);
        b.putLong(index + CommandDescriptor.TAG_OFFSET, until);
        b.putLong(index + CommandDescriptor.DATA_OFFSET, sequence);
        ring.commit(index);
        return 0;
    }

    /**
     * Withdraw an endpoint from the agent.
     *
     * @param endpoint the endpoint's index.
     * @param sequence the reply sequence.
     * @return 0, or {@link #RING_FULL}.
     */
    public int closeEndpoint(final int endpoint, final long sequence)
    {
        final CommandQueue ring = controlRing;
        final int index = ring.tryClaim(CommandDescriptor.OP_EP_CLOSE, CommandDescriptor.HEADER_LENGTH);
        if (index < 0)
        {
            return RING_FULL;
        }
        final AtomicBuffer b = ring.buffer();
        b.putInt(index + CommandDescriptor.ENDPOINT_OFFSET, endpoint);
        b.putLong(index + CommandDescriptor.DATA_OFFSET, sequence);
        ring.commit(index);
        return 0;
    }

    /**
     * Hand a deferred counter work item to the agent, which holds it until its trigger fires (control path; drives
     * progress while the control ring is full).
     *
     * @param handle the item's trigger context handle ({@link TriggerTable#handle}).
     */
    public void triggerWork(final long handle)
    {
        final int index = claimControl(CommandDescriptor.OP_TRIGGER_WORK, CommandDescriptor.HEADER_LENGTH);
        final AtomicBuffer b = controlRing.buffer();
        b.putLong(index + CommandDescriptor.CONTEXT_OFFSET, handle);
        controlRing.commit(index);
    }

    /**
     * Claim a control command slot, driving manual progress while the ring is full (control path).
     */
    private int claimControl(final int opcode, final int length)
    {
        final CommandQueue ring = controlRing;
        while (true)
        {
            final int index = ring.tryClaim(opcode, length);
            if (index >= 0)
            {
                return index;
            }
            if (0 == progress.getAsInt())
            {
                Thread.yield();
            }
        }
    }

    // ------------------------------------------------------------------------------------------- static encoders

    /**
     * Bytes a remote list of {@code rmaCount} entries takes in a command (0 when there is none).
     */
    private static int remoteListBytes(final int rmaCount)
    {
        return rmaCount <= 0 ? 0 :
            8 + Math.min(rmaCount, DomainAgent.MAX_IOV) * CommandDescriptor.REMOTE_ENTRY_LENGTH;
    }

    private static int listLength(final int count)
    {
        return 8 + count * CommandDescriptor.IOV_ENTRY_LENGTH;
    }

    /**
     * Write {@code count} iov entries (address, length) from {@code at}.
     */
    private static void putIovEntries(final AtomicBuffer b, final int at, final DirectBuffer[] iov, final int count)
    {
        for (int k = 0; k < count; k++)
        {
            final int entry = at + k * CommandDescriptor.IOV_ENTRY_LENGTH;
            b.putLong(entry, iov[k].addressOffset());
            b.putLong(entry + 8, iov[k].capacity());
        }
    }

    /**
     * Write a segment list (count, then the iov entries) at {@code at}.
     */
    private static void putList(final AtomicBuffer b, final int at, final DirectBuffer[] iov, final int count)
    {
        b.putLong(at, count);
        putIovEntries(b, at + 8, iov, count);
    }

    /**
     * Write the remote list at record offset {@code at} and point the tag field at it.
     */
    private static void putRemoteList(
        final AtomicBuffer b,
        final int i,
        final int at,
        final int n,
        final long[] addresses,
        final long[] lengths,
        final long[] keys)
    {
        b.putLong(i + CommandDescriptor.TAG_OFFSET, at);
        b.putLong(i + at, n);
        for (int k = 0; k < n; k++)
        {
            final int entry = i + at + 8 + k * CommandDescriptor.REMOTE_ENTRY_LENGTH;
            b.putLong(entry, addresses[k]);
            b.putLong(entry + 8, lengths[k]);
            b.putLong(entry + 16, keys[k]);
        }
    }
}
