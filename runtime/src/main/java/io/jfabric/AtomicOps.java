package io.jfabric;

import io.jfabric.spi.AtomicCapabilities;
import io.jfabric.agent.CommandDescriptor;
import io.jfabric.agent.CommandProxy;
import io.jfabric.agent.PinTable;
import org.agrona.DirectBuffer;

import static io.jfabric.PostChecks.COPY;
import static io.jfabric.PostChecks.NO_REMOTE;

/**
 * The post paths of an endpoint's atomic calls ({@code fi_atomic(3)}): the provider's atomic table decides what
 * is valid ({@code -EOPNOTSUPP} otherwise, {@code -EMSGSIZE} above the valid count), operands, compare values and
 * results are one buffer each or iovs of whole elements, and the msg forms add remote lists. As the other families:
 * checks, peer, completion reservation, pins, one call to the domain's {@link CommandProxy}.
 * <p>
 * Threading: safe from any number of posting threads (no mutable state of its own). Allocation-free.
 */
final class AtomicOps
{
    private final Endpoint endpoint;
    private final Reservations reservations;
    private final CommandProxy proxy;
    private final AtomicCapabilities atomics;
    private final int index;
    private final int txIovLimit;
    private final int rmaIovLimit;
    /** The answer for a destination with no peer: ENOTCONN on a MSG endpoint, else EINVAL (negated). */
    private final int noPeer;

    AtomicOps(
        final Endpoint endpoint,
        final Reservations reservations,
        final CommandProxy proxy,
        final AtomicCapabilities atomics,
        final int txIovLimit,
        final int rmaIovLimit)
    {
        this.endpoint = endpoint;
        this.reservations = reservations;
        this.proxy = proxy;
        this.atomics = atomics;
        this.index = endpoint.index();
        this.txIovLimit = txIovLimit;
        this.rmaIovLimit = rmaIovLimit;
        this.noPeer = endpoint.noPeer();
    }

    /**
     * The valid queries ({@code fi_atomicvalid} and kin).
     *
     * @param kind     the family.
     * @param datatype the datatype.
     * @param op       the op.
     * @return the count, or {@code -EOPNOTSUPP}.
     */
    long valid(final AtomicCapabilities.Kind kind, final AtomicDatatype datatype, final AtomicOp op)
    {
        return atomics.valid(kind, op, datatype);
    }

    /**
     * {@code fi_atomicmsg}: operands from the message's buffer or iov.
     *
     * @param msg      the message.
     * @param datatype element type.
     * @param op       the op.
     * @param flags    the application's flags.
     * @return 0 or a negative errno.
     */
    int atomicmsg(final Message msg, final AtomicDatatype datatype, final AtomicOp op, final long flags)
    {
        if (null == msg)
        {
            return Errno.EINVAL.negated();
        }
        if (msg.iovCount > 0)
        {
            return postAtomicIov(AtomicCapabilities.Kind.ATOMIC, PostChecks.copyOnInject(flags), msg.iov,
                msg.iovCount, null, 0, null, 0, msg.addr, msg.remoteAddress, msg.key, msg, datatype, op, msg.context);
        }
        final int elements = elements(msg, datatype);
        if (elements < 0)
        {
            return elements;
        }
        return postAtomic(AtomicCapabilities.Kind.ATOMIC, PostChecks.copyOnInject(flags), msg.buffer, msg.offset,
            elements, null, 0, null, 0, msg.addr, msg.remoteAddress, msg.key, msg, datatype, op, msg.context);
    }

    /**
     * {@code fi_fetch_atomicmsg} and {@code fi_compare_atomicmsg} with one buffer each: operands from the
     * message's buffer (an iov is refused).
     *
     * @param kind          FETCH or COMPARE.
     * @param msg           the message.
     * @param compare       compare values (COMPARE), or null.
     * @param compareOffset start in it.
     * @param result        the old values' buffer.
     * @param resultOffset  start in it.
     * @param datatype      element type.
     * @param op            the op.
     * @param flags         the application's flags (INJECT is dropped: the call returns results).
     * @return 0 or a negative errno.
     */
    int fetchmsg(
        final AtomicCapabilities.Kind kind, final Message msg, final DirectBuffer compare, final int compareOffset,
        final DirectBuffer result, final int resultOffset, final AtomicDatatype datatype, final AtomicOp op,
        final long flags)
    {
        if (null == msg || msg.iovCount > 0)
        {
            return Errno.EINVAL.negated();
        }
        final int elements = elements(msg, datatype);
        if (elements < 0)
        {
            return elements;
        }
        return postAtomic(kind, flags & ~Flags.INJECT, msg.buffer, msg.offset, elements, compare, compareOffset,
            result, resultOffset, msg.addr, msg.remoteAddress, msg.key, msg, datatype, op, msg.context);
    }

    /**
     * {@code fi_fetch_atomicmsg} and {@code fi_compare_atomicmsg} with iovs: operands from the message's iov
     * (required).
     *
     * @param kind         FETCH or COMPARE.
     * @param msg          the message.
     * @param compareIov   compare values (COMPARE), or null.
     * @param compareCount how many.
     * @param resultIov    the old values' buffers.
     * @param resultCount  how many.
     * @param datatype     element type.
     * @param op           the op.
     * @param flags        the application's flags (INJECT is dropped).
     * @return 0 or a negative errno.
     */
    int fetchmsgIov(
        final AtomicCapabilities.Kind kind, final Message msg, final DirectBuffer[] compareIov, final int compareCount,
        final DirectBuffer[] resultIov, final int resultCount, final AtomicDatatype datatype, final AtomicOp op,
        final long flags)
    {
        if (null == msg || msg.iovCount <= 0)
        {
            return Errno.EINVAL.negated();
        }
        return postAtomicIov(kind, flags & ~Flags.INJECT, msg.iov, msg.iovCount, compareIov, compareCount,
            resultIov, resultCount, msg.addr, msg.remoteAddress, msg.key, msg, datatype, op, msg.context);
    }

    private static int elements(final Message msg, final AtomicDatatype datatype)
    {
        if (null == msg.buffer || null == datatype || 0 != msg.length % datatype.size())
        {
            return Errno.EINVAL.negated();
        }
        return msg.length / datatype.size();
    }

    /**
     * An atomic with one buffer each for operands, compare values and results.
     *
     * @param kind          the family.
     * @param flags         the flags.
     * @param operands      operands (null for ATOMIC_READ).
     * @param offset        start.
     * @param count         elements.
     * @param compare       compare values (COMPARE), or null.
     * @param compareOffset start in it.
     * @param result        the old values' buffer (FETCH, COMPARE), or null.
     * @param resultOffset  start in it.
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param remote        a message carrying a remote list, or null.
     * @param datatype      element type.
     * @param op            the op.
     * @param context       op context.
     * @return 0 or a negative errno.
     */
    int postAtomic(
        final AtomicCapabilities.Kind kind,
        final long flags,
        final DirectBuffer operands,
        final int offset,
        final int count,
        final DirectBuffer compare,
        final int compareOffset,
        final DirectBuffer result,
        final int resultOffset,
        final long dest,
        final long remoteAddress,
        final long key,
        final Message remote,
        final AtomicDatatype datatype,
        final AtomicOp op,
        final long context)
    {
        if (!endpoint.enabled())
        {
            return Errno.EOPBADSTATE.negated();
        }
        if (null == datatype || null == op)
        {
            return Errno.EINVAL.negated();
        }
        final long max = atomics.valid(kind, op, datatype);
        if (max < 0)
        {
            return Errno.EOPNOTSUPP.negated();
        }
        if (count < 1)
        {
            return Errno.EINVAL.negated();
        }
        if (count > max)
        {
            return Errno.EMSGSIZE.negated();
        }
        final int bytes = count * datatype.size();
        final boolean inject = (flags & Flags.INJECT) != 0 || (AtomicCapabilities.Kind.ATOMIC == kind &&
            (flags & COPY) != 0);
        final boolean readOnly = AtomicCapabilities.Kind.FETCH == kind && AtomicOp.ATOMIC_READ == op;
        long operandAddress = 0;
        if (!inject && !(readOnly && null == operands))
        {
            operandAddress = PostChecks.address(operands, offset, bytes);
            if (operandAddress < 0)
            {
                return Errno.EINVAL.negated();
            }
        }
        if (inject && (null == operands || offset < 0 || (long) offset + bytes > operands.capacity()))
        {
            return Errno.EINVAL.negated();
        }
        final long compareAddress = AtomicCapabilities.Kind.COMPARE == kind ?
            PostChecks.address(compare, compareOffset, bytes) : 0;
        final long resultAddress = AtomicCapabilities.Kind.ATOMIC != kind ?
            PostChecks.target(result, resultOffset, bytes) : 0;
        if (compareAddress < 0 || resultAddress < 0)
        {
            return Errno.EINVAL.negated();
        }
        final Message r = PostChecks.remoteList(remote);
        if (NO_REMOTE != r && !PostChecks.remoteListFits(r, bytes, rmaIovLimit))
        {
            return Errno.EINVAL.negated();
        }
        final long peer = endpoint.peerOf(dest);
        if (peer < 0)
        {
            return noPeer;
        }
        final Reservations reservations = this.reservations;
        if (!reservations.reserveTx(flags))
        {
            return Errno.EAGAIN.negated();
        }
        // The inject call copies the operands now and returns nothing: no pin. FI_INJECT as op_flags or to the msg
        // form copies them too but completes: a holder-less pin carries its context (any long, bit 63 included).
        // Otherwise operands, compare values and results are pinned.
        int pin = PinTable.NONE;
        if ((flags & Flags.INJECT) == 0)
        {
            pin = inject ? reservations.pinTransmit(null, PinTable.NONE, context) :
                reservations.pinTransmit(PostChecks.holder(result),
                    reservations.pinChain(PostChecks.holder(compare), PostChecks.holder(operands)), context);
            if (pin < 0)
            {
                reservations.releaseTx(flags);
                return Errno.EAGAIN.negated();
            }
        }
        if (proxy.atomic(index, flags, inject, context, operands, offset, operandAddress, count, bytes,
            CommandDescriptor.atomicCode(kind.ordinal(), op.value(), datatype.value()), resultAddress, compareAddress,
            peer, remoteAddress, key, pin, r.rmaCount, r.rmaAddresses, r.rmaLengths, r.rmaKeys) < 0)
        {
            reservations.release(pin);
            reservations.releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        return 0;
    }

    /**
     * Atomics with operands, compare values and results as iovs: the command carries segment lists, the agent
     * gathers operands and compare values and the target's answer is scattered into the result buffers.
     *
     * @param kind          the family.
     * @param flags         the flags.
     * @param operands      operand buffers (null or count 0 for ATOMIC_READ).
     * @param operandCount  how many.
     * @param compare       compare value buffers (COMPARE), or null.
     * @param compareCount  how many.
     * @param result        old value buffers (FETCH, COMPARE), or null.
     * @param resultCount   how many.
     * @param dest          target.
     * @param remoteAddress offset in the target region.
     * @param key           region key.
     * @param remote        a message carrying a remote list, or null.
     * @param datatype      element type.
     * @param op            the op.
     * @param context       op context.
     * @return 0 or a negative errno.
     */
    int postAtomicIov(
        final AtomicCapabilities.Kind kind,
        final long flags,
        final DirectBuffer[] operands,
        final int operandCount,
        final DirectBuffer[] compare,
        final int compareCount,
        final DirectBuffer[] result,
        final int resultCount,
        final long dest,
        final long remoteAddress,
        final long key,
        final Message remote,
        final AtomicDatatype datatype,
        final AtomicOp op,
        final long context)
    {
        if (!endpoint.enabled())
        {
            return Errno.EOPBADSTATE.negated();
        }
        if (null == datatype || null == op)
        {
            return Errno.EINVAL.negated();
        }
        final long max = atomics.valid(kind, op, datatype);
        if (max < 0)
        {
            return Errno.EOPNOTSUPP.negated();
        }
        final int size = datatype.size();
        final boolean readOnly = AtomicCapabilities.Kind.FETCH == kind && AtomicOp.ATOMIC_READ == op;
        final boolean noOperands = readOnly && (null == operands || 0 == operandCount);
        final long operandBytes = noOperands ? 0 : PostChecks.iovBytes(operands, operandCount, txIovLimit, size);
        final long resultBytes = AtomicCapabilities.Kind.ATOMIC == kind ? 0 :
            PostChecks.iovBytes(result, resultCount, txIovLimit, size);
        if (resultBytes > 0 && PostChecks.readOnly(result, resultCount))
        {
            return Errno.EINVAL.negated();
        }
        final long bytes = noOperands ? resultBytes : operandBytes;
        if (operandBytes < 0 || resultBytes < 0 || bytes < size ||
            (AtomicCapabilities.Kind.ATOMIC != kind && resultBytes != bytes))
        {
            return Errno.EINVAL.negated();
        }
        final long compareBytes = AtomicCapabilities.Kind.COMPARE == kind ?
            PostChecks.iovBytes(compare, compareCount, txIovLimit, size) : 0;
        if (AtomicCapabilities.Kind.COMPARE == kind && compareBytes != bytes)
        {
            return Errno.EINVAL.negated();
        }
        if (bytes / size > max)
        {
            return Errno.EMSGSIZE.negated();
        }
        final boolean inject = (flags & Flags.INJECT) != 0 || (AtomicCapabilities.Kind.ATOMIC == kind &&
            (flags & COPY) != 0);
        if (inject && AtomicCapabilities.Kind.ATOMIC != kind)
        {
            return Errno.EINVAL.negated();
        }
        final Message r = PostChecks.remoteList(remote);
        if (NO_REMOTE != r && !PostChecks.remoteListFits(r, bytes, rmaIovLimit))
        {
            return Errno.EINVAL.negated();
        }
        final long peer = endpoint.peerOf(dest);
        if (peer < 0)
        {
            return noPeer;
        }
        final Reservations reservations = this.reservations;
        if (!reservations.reserveTx(flags))
        {
            return Errno.EAGAIN.negated();
        }
        final boolean hasCompare = AtomicCapabilities.Kind.COMPARE == kind;
        final boolean hasResult = AtomicCapabilities.Kind.ATOMIC != kind;
        int pin = PinTable.NONE;
        if (!inject)
        {
            // pinIov releases the chain it was given when the table is full: stop there.
            int chain = noOperands ? PinTable.NONE : reservations.pinIov(operands, operandCount, PinTable.NONE);
            chain = !hasCompare || Reservations.PIN_FULL == chain ? chain :
                reservations.pinIov(compare, compareCount, chain);
            chain = !hasResult || Reservations.PIN_FULL == chain ? chain :
                reservations.pinIov(result, resultCount, chain);
            pin = reservations.pinTransmit(null, chain, context);
            if (pin < 0)
            {
                reservations.releaseTx(flags);
                return Errno.EAGAIN.negated();
            }
        }
        if (proxy.atomicIov(index, flags, inject, context, noOperands ? null : operands, operandCount,
            hasCompare ? compare : null, compareCount, hasResult ? result : null, resultCount, (int) (bytes / size),
            bytes, CommandDescriptor.atomicCode(kind.ordinal(), op.value(), datatype.value()), peer, remoteAddress,
            key, pin, r.rmaCount, r.rmaAddresses, r.rmaLengths, r.rmaKeys) < 0)
        {
            reservations.release(pin);
            reservations.releaseTx(flags);
            return Errno.EAGAIN.negated();
        }
        return 0;
    }
}
