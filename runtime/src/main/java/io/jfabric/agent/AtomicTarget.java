package io.jfabric.agent;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.spi.AtomicCapabilities;
import org.agrona.DirectBuffer;

/**
 * Part of the domain agent: executes an ATOMIC request at its target (registry checks of every range, then the
 * {@link AtomicExecutor}) and queues the ATOMIC_RESP with the old values.
 * <p>
 * Threading: single-threaded, owned by its domain agent's duty cycle ({@link DomainAgent}); package-private.
 */
final class AtomicTarget
{
    /** {@code Kind.values()} copies the array on every call: keep one copy (the data path allocates nothing). */
    static final AtomicCapabilities.Kind[] ATOMIC_KINDS = AtomicCapabilities.Kind.values();
    private final FrameFlyweight in;
    private final MemoryRegistry registry;
    private final AtomicExecutor executor;
    private final int atomicMaxBytes;
    private final AnswerQueue answers;
    private final RemoteRanges remoteRanges;
    /** Counters bound to regions (wired by the agent). */
    RegionCounters regionCounters;

    AtomicTarget(
        final FrameFlyweight in,
        final MemoryRegistry registry,
        final AtomicExecutor executor,
        final int atomicMaxBytes,
        final AnswerQueue answers,
        final RemoteRanges remoteRanges)
    {
        this.in = in;
        this.registry = registry;
        this.executor = executor;
        this.atomicMaxBytes = atomicMaxBytes;
        this.answers = answers;
        this.remoteRanges = remoteRanges;
    }

    boolean onAtomicFrame(
        final EndpointState ep,
        final DirectBuffer buffer,
        final int offset,
        final long frameFlags,
        final long srcKey,
        final long cookie,
        final long operandBytes,
        final long code)
    {
        if (answers.isFull())
        {
            return false;
        }
        final int kindOrdinal = (int) (code >>> 16);
        final AtomicOp op = AtomicOp.fromValue((int) (code >>> 8) & 0xFF);
        final AtomicDatatype datatype = AtomicDatatype.fromValue((int) code & 0xFF);
        final long resultAddress = in.tag();
        final int slot = answers.nextSlot();
        final long scratch = answers.scratch().addressOffset() + (long) slot * answers.scratchStride();
        final boolean remoteIov = (frameFlags & FrameDescriptor.FLAG_REMOTE_IOV) != 0;
        final int listAt = in.rmaPayloadOffset();
        final int operandsAt = remoteIov ? FrameLists.skipRemoteList(buffer, listAt) : listAt;
        int status;
        if (null == op || null == datatype || kindOrdinal > 2 || operandBytes % datatype.size() != 0 ||
            operandBytes > atomicMaxBytes)
        {
            status = null == op || null == datatype ? Errno.EOPNOTSUPP.value() : Errno.EINVAL.value();
        }
        else
        {
            final AtomicCapabilities.Kind kind = ATOMIC_KINDS[kindOrdinal];
            final long access = AtomicExecutor.remoteAccess(kind, op);
            // MR check of every range before touching target memory.
            final int ranges;
            if (remoteIov)
            {
                ranges = remoteRanges.verifyRemoteList(buffer, listAt, operandBytes, access, datatype.size());
            }
            else
            {
                final long raw = registry.verify(in.rmaKey(),
                    in.rmaAddress(), operandBytes, access);
                remoteRanges.address[0] = raw;
                remoteRanges.length[0] = operandBytes;
                ranges = raw < 0 ? (int) raw : 1;
            }
            if (ranges < 0)
            {
                status = -ranges;
            }
            else
            {
                final long operands = buffer.addressOffset() + operandsAt;
                int result = 0;
                long done = 0;
                for (int k = 0; k < ranges && 0 == result; k++)
                {
                    final int count = (int) (remoteRanges.length[k] / datatype.size());
                    if (0 == count)
                    {
                        continue;
                    }
                    switch (kind)
                    {
                        case FETCH:
                            result = executor.fetchAtomic(
                                op, datatype, remoteRanges.address[k], operands + done, scratch + done, count);
                            break;
                        case COMPARE:
                            result = executor.compareAtomic(op, datatype, remoteRanges.address[k], operands + done,
                                operands + operandBytes + done, scratch + done, count);
                            break;
                        default:
                            result = executor.atomic(op, datatype, remoteRanges.address[k], operands + done, count);
                            break;
                    }
                    done += remoteRanges.length[k];
                }
                status = -result;
                if (0 == result)
                {
                    final CounterCell counter =
                        AtomicOp.ATOMIC_READ == op ? ep.remoteReadCounter : ep.remoteWriteCounter;
                    if (null != counter)
                    {
                        counter.add(1);
                    }
                    final long event = AtomicOp.ATOMIC_READ == op ? Flags.REMOTE_READ : Flags.REMOTE_WRITE;
                    if (remoteIov)
                    {
                        regionCounters.countList(buffer, listAt, event);
                    }
                    else
                    {
                        regionCounters.count(in.rmaKey(), event);
                    }
                }
            }
        }
        final int resultLength = 0 == status && kindOrdinal != 0 ? (int) operandBytes : 0;
        int payloadLength = resultLength;
        if (resultLength > 0 && (frameFlags & FrameDescriptor.FLAG_RESULT_IOV) != 0)
        {
            // Echo the initiator's result segments after the old values (they follow the operands and compares).
            final int resultList = operandsAt + (int) (2 == kindOrdinal ? 2 * operandBytes : operandBytes);
            final int listBytes = FrameLists.skipSegments(buffer, resultList) - resultList;
            answers.scratch().putBytes(slot * answers.scratchStride() + resultLength, buffer, resultList, listBytes);
            payloadLength += listBytes;
        }
        answers.enqueueAck(FrameDescriptor.OPCODE_ATOMIC_RESP, srcKey, ep.index, cookie, frameFlags, resultAddress,
            status,
            resultLength, payloadLength > 0 ? scratch : 0, payloadLength);
        return true;
    }
}
