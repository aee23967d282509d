package io.jfabric.opbackend;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.spi.DomainTransport;
import io.jfabric.spi.FrameHandler;
import io.jfabric.spi.OperationBackend;
import io.jfabric.spi.OperationCommand;
import io.jfabric.spi.OperationContext;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The domain transport of {@link LoopbackOperationProvider}: names peers as inproc does ({@code fi_oploop://d:e}),
 * carries no frames, and is its own {@link OperationBackend}.
 * <p>
 * Protocol (test-only, in one JVM): each domain has a request ring and an answer ring (Agrona
 * {@code ManyToOneRingBuffer}s). An initiator writes one request record per operation into the target domain's
 * request ring: small payloads, injects, iov sends and atomic operands copied into the record; larger payloads and
 * every destination (read buffers, atomic results) by address, read or written by the target directly (the runtime
 * keeps them pinned until the operation completes). The target's duty cycle takes each request: a message goes to
 * {@link OperationContext#deliver} (the runtime's matching); an RMA or atomic is checked range by range with
 * {@link OperationContext#verifyRemote} before a byte moves, executed, and reported with the remote events. Then
 * it writes an answer (operation id, errno) into the initiator's answer ring, whose duty cycle completes or fails
 * the operation through the context. A request that cannot be taken yet (full receive CQ, no room for an
 * unexpected message, full answer ring) stays at the head of the request ring and is tried again next cycle.
 * <p>
 * Threading: addressing methods from any thread; {@link OperationBackend} methods on this domain's agent thread;
 * the rings are many-producer.
 */
final class LoopbackOperationTransport implements DomainTransport, OperationBackend
{
    static final String SCHEME = "fi_oploop://";
    private static final int MAX_DOMAINS = 1024;
    private static final AtomicReferenceArray<LoopbackOperationTransport> DOMAINS =
        new AtomicReferenceArray<>(MAX_DOMAINS);
    private static final AtomicInteger NEXT_ID = new AtomicInteger();
    /** Requests taken by every oploop domain's back-end as targets (for tests). */
    static final AtomicLong REQUESTS = new AtomicLong();
    /** Frames the runtime tried to offer through an oploop transport (must stay 0; for tests). */
    static final AtomicLong FRAMES_OFFERED = new AtomicLong();
    private static final int REQUEST_RING = 16 * 1024 * 1024;
    private static final int ANSWER_RING = 256 * 1024;
    /**
     * Payloads up to this many bytes travel in the request record; larger ones by address (iov sends are gathered
     * into the record up to its largest length, 2 MiB).
     */
    private static final long COPY_LIMIT = 8 * 1024;
    private static final int BATCH = 64;
    private static final int MAX_RANGES = 16;
    private static final int RECORD_TYPE = 1;

    // Request record layout.
    private static final int OPCODE = 0;
    private static final int ENDPOINT = 4;
    private static final int SOURCE_KEY = 8;
    private static final int OPERATION = 16;
    private static final int BITS = 20;
    private static final int TAG = 24;
    private static final int DATA = 32;
    private static final int LENGTH = 40;
    private static final int ATOMIC_KIND = 48;
    private static final int ATOMIC_OP = 52;
    private static final int ATOMIC_TYPE = 56;
    private static final int REMOTE_COUNT = 60;
    private static final int LOCAL_COUNT = 64;
    private static final int RESULT_COUNT = 68;
    private static final int HEADER = 72;
    private static final int REMOTE_ENTRY = 24;
    private static final int SEGMENT_ENTRY = 16;
    private static final int BIT_HAS_DATA = 1;
    private static final int BIT_BY_ADDRESS = 2;
    private static final int BIT_DELIVERY = 4;
    /** A held message whose sender was answered when it was held. */
    private static final int BIT_ANSWERED = 8;
    private static final int HELD_RING = 4 * 1024 * 1024;
    // Answer record layout.
    private static final int ANSWER_OPERATION = 0;
    private static final int ANSWER_STATUS = 4;
    private static final int ANSWER_LENGTH = 8;

    private final int domainId;
    private final ManyToOneRingBuffer requests;
    private final ManyToOneRingBuffer answers;
    /** Messages waiting for their endpoint (agent thread only: written and read by this domain's duty cycle). */
    private final OneToOneRingBuffer held;
    private int heldCount;
    private final ControlledMessageHandler heldHandler = this::onHeld;
    private final UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(1 << 20));
    private final long[] srcAddress = new long[MAX_RANGES];
    private final long[] srcLength = new long[MAX_RANGES];
    private final long[] dstAddress = new long[MAX_RANGES];
    private final long[] dstLength = new long[MAX_RANGES];
    private final ControlledMessageHandler requestHandler = this::onRequest;
    private final ControlledMessageHandler answerHandler = this::onAnswer;
    private OperationContext context;

    private LoopbackOperationTransport(final int domainId)
    {
        this.domainId = domainId;
        this.requests = new ManyToOneRingBuffer(new UnsafeBuffer(
            ByteBuffer.allocateDirect(REQUEST_RING + RingBufferDescriptor.TRAILER_LENGTH)));
        this.answers = new ManyToOneRingBuffer(new UnsafeBuffer(
            ByteBuffer.allocateDirect(ANSWER_RING + RingBufferDescriptor.TRAILER_LENGTH)));
        this.held = new OneToOneRingBuffer(new UnsafeBuffer(
            ByteBuffer.allocateDirect(HELD_RING + RingBufferDescriptor.TRAILER_LENGTH)));
    }

    static LoopbackOperationTransport open()
    {
        for (int attempt = 0; attempt < MAX_DOMAINS; attempt++)
        {
            final int i = Math.floorMod(NEXT_ID.getAndIncrement(), MAX_DOMAINS);
            if (null == DOMAINS.get(i))
            {
                final LoopbackOperationTransport transport = new LoopbackOperationTransport(i);
                if (DOMAINS.compareAndSet(i, null, transport))
                {
                    return transport;
                }
            }
        }
        throw new FabricException(Errno.ENOSPC, "oploop: too many open domains (" + MAX_DOMAINS + ")");
    }

    // ---- DomainTransport: naming only ----------------------------------------------------------------------------

    @Override
    public OperationBackend operationBackend()
    {
        return this;
    }

    @Override
    public int maxFrameLength()
    {
        return requests.maxMsgLength();
    }

    @Override
    public byte[] endpointAddress(final int endpointIndex)
    {
        return address(localKey(endpointIndex));
    }

    @Override
    public long localKey(final int endpointIndex)
    {
        return ((long) domainId << 32) | endpointIndex;
    }

    @Override
    public long resolve(final byte[] address)
    {
        if (null == address)
        {
            return -1;
        }
        final String text = new String(address, StandardCharsets.US_ASCII);
        final int colon = text.indexOf(':', SCHEME.length());
        if (!text.startsWith(SCHEME) || colon < 0)
        {
            return -1;
        }
        try
        {
            final int domain = Integer.parseInt(text.substring(SCHEME.length(), colon));
            final int endpoint = Integer.parseInt(text.substring(colon + 1));
            return domain < 0 || domain >= MAX_DOMAINS || endpoint < 0 ? -1 : ((long) domain << 32) | endpoint;
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    @Override
    public byte[] address(final long peerKey)
    {
        return (SCHEME + (peerKey >>> 32) + ":" + (int) peerKey).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public int endpointIndex(final long peerKey)
    {
        return (int) peerKey;
    }

    @Override
    public long peerDomain(final long peerKey)
    {
        return peerKey >>> 32;
    }

    /**
     * Never called for an operation-level domain: the runtime sends no frames through it.
     */
    @Override
    public int offer(
        final long peerKey,
        final int lane,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        FRAMES_OFFERED.incrementAndGet();
        return Errno.ENOSYS.negated();
    }

    @Override
    public int poll(final FrameHandler handler, final int limit)
    {
        return 0;
    }

    @Override
    public void close()
    {
        DOMAINS.compareAndSet(domainId, this, null);
    }

    // ---- OperationBackend: initiator ----------------------------------------------------------------------------

    @Override
    public void open(final OperationContext context)
    {
        this.context = context;
    }

    @Override
    public int submit(final OperationCommand command)
    {
        final long peer = command.peer();
        final int peerDomain = (int) (peer >>> 32);
        final LoopbackOperationTransport target = peerDomain >= 0 && peerDomain < MAX_DOMAINS ?
            DOMAINS.get(peerDomain) : null;
        if (null == target)
        {
            return Errno.EHOSTUNREACH.negated();
        }
        final int opcode = command.opcode();
        final long flags = command.flags();
        final long length = command.length();
        final int localSegments = command.segmentCount(OperationCommand.LOCAL);
        final boolean send = OperationCommand.SEND == opcode || OperationCommand.TAGGED_SEND == opcode;
        final boolean inline = (flags & OperationCommand.INLINE) != 0;
        final boolean byAddress;
        long copied = 0;
        int resultSegments = 0;
        switch (opcode)
        {
            case OperationCommand.READ:
                byAddress = true;
                break;
            case OperationCommand.ATOMIC:
                byAddress = false;
                copied = length * (OperationCommand.ATOMIC_COMPARE == command.atomicKind() ? 2 : 1);
                resultSegments = command.segmentCount(OperationCommand.RESULT);
                break;
            default:
                byAddress = !inline && length > COPY_LIMIT && !(send && localSegments > 1);
                copied = byAddress ? 0 : length;
                break;
        }
        final int remote = command.remoteCount();
        final int localListed = byAddress ? localSegments : 0;
        final int headerEnd = HEADER + remote * REMOTE_ENTRY + (localListed + resultSegments) * SEGMENT_ENTRY;
        final long recordLength = headerEnd + copied;
        if (recordLength > target.requests.maxMsgLength() || remote > MAX_RANGES || localListed > MAX_RANGES ||
            resultSegments > MAX_RANGES)
        {
            return Errno.EMSGSIZE.negated();
        }
        final int index = target.requests.tryClaim(RECORD_TYPE, (int) recordLength);
        if (index < 0)
        {
            return BUSY;
        }
        final AtomicBuffer b = target.requests.buffer();
        b.putInt(index + OPCODE, opcode);
        b.putInt(index + ENDPOINT, (int) peer);
        b.putLong(index + SOURCE_KEY, localKey(command.endpoint()));
        b.putInt(index + OPERATION, command.operation());
        b.putInt(index + BITS, ((flags & Flags.REMOTE_CQ_DATA) != 0 ? BIT_HAS_DATA : 0) |
            (byAddress ? BIT_BY_ADDRESS : 0) | ((flags & Flags.DELIVERY_COMPLETE) != 0 ? BIT_DELIVERY : 0));
        b.putLong(index + TAG, command.tag());
        b.putLong(index + DATA, command.data());
        b.putLong(index + LENGTH, length);
        b.putInt(index + ATOMIC_KIND, OperationCommand.ATOMIC == opcode ? command.atomicKind() : 0);
        b.putInt(index + ATOMIC_OP, OperationCommand.ATOMIC == opcode ? command.atomicOp() : 0);
        b.putInt(index + ATOMIC_TYPE, OperationCommand.ATOMIC == opcode ? command.atomicDatatype() : 0);
        b.putInt(index + REMOTE_COUNT, remote);
        b.putInt(index + LOCAL_COUNT, localListed);
        b.putInt(index + RESULT_COUNT, resultSegments);
        int at = index + HEADER;
        for (int k = 0; k < remote; k++)
        {
            b.putLong(at, command.remoteAddress(k));
            b.putLong(at + 8, command.remoteLength(k));
            b.putLong(at + 16, command.remoteKey(k));
            at += REMOTE_ENTRY;
        }
        for (int k = 0; k < localListed; k++)
        {
            b.putLong(at, command.segmentAddress(OperationCommand.LOCAL, k));
            b.putLong(at + 8, command.segmentLength(OperationCommand.LOCAL, k));
            at += SEGMENT_ENTRY;
        }
        for (int k = 0; k < resultSegments; k++)
        {
            b.putLong(at, command.segmentAddress(OperationCommand.RESULT, k));
            b.putLong(at + 8, command.segmentLength(OperationCommand.RESULT, k));
            at += SEGMENT_ENTRY;
        }
        if (copied > 0)
        {
            final long into = b.addressOffset() + at;
            final long done = gather(command, OperationCommand.LOCAL, into);
            if (OperationCommand.ATOMIC == opcode && OperationCommand.ATOMIC_COMPARE == command.atomicKind())
            {
                gather(command, OperationCommand.COMPARE, into + done);
            }
        }
        target.requests.commit(index);
        return ACCEPTED;
    }

    private static long gather(final OperationCommand command, final int list, final long into)
    {
        final int n = command.segmentCount(list);
        long done = 0;
        for (int k = 0; k < n; k++)
        {
            final long len = command.segmentLength(list, k);
            final long address = command.segmentAddress(list, k);
            if (0 != address)
            {
                // FI_ATOMIC_READ may give no operand buffer.
                UnsafeApi.copyMemory(address, into + done, len);
            }
            done += len;
        }
        return done;
    }

    @Override
    public int doWork()
    {
        int work = answers.controlledRead(answerHandler, BATCH);
        if (heldCount > 0)
        {
            work += held.controlledRead(heldHandler, BATCH);
        }
        work += requests.controlledRead(requestHandler, BATCH);
        return work;
    }

    private ControlledMessageHandler.Action onAnswer(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final int operation = buffer.getInt(index + ANSWER_OPERATION);
        final int status = buffer.getInt(index + ANSWER_STATUS);
        final int done = 0 == status ? context.complete(operation) : context.fail(operation, status);
        return OperationContext.BUSY == done ? ControlledMessageHandler.Action.ABORT :
            ControlledMessageHandler.Action.CONTINUE;
    }

    // ---- OperationBackend: target --------------------------------------------------------------------------------

    private ControlledMessageHandler.Action onRequest(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final int opcode = buffer.getInt(index + OPCODE);
        final boolean message = OperationCommand.SEND == opcode || OperationCommand.TAGGED_SEND == opcode;
        if (message && heldCount > 0)
        {
            // Messages keep their order behind those already held; RMA and atomics go on.
            return hold(buffer, index, length);
        }
        final long sourceKey = buffer.getLong(index + SOURCE_KEY);
        final LoopbackOperationTransport initiator = DOMAINS.get((int) (sourceKey >>> 32));
        int answerAt = -1;
        if (null != initiator)
        {
            answerAt = initiator.answers.tryClaim(RECORD_TYPE, ANSWER_LENGTH);
            if (answerAt < 0)
            {
                return ControlledMessageHandler.Action.ABORT;
            }
        }
        final int status = execute(buffer, index, sourceKey);
        if (OperationContext.BUSY == status)
        {
            if (answerAt >= 0)
            {
                initiator.answers.abort(answerAt);
            }
            return message ? hold(buffer, index, length) : ControlledMessageHandler.Action.ABORT;
        }
        REQUESTS.incrementAndGet();
        answer(initiator, answerAt, buffer.getInt(index + OPERATION), status);
        return ControlledMessageHandler.Action.CONTINUE;
    }

    private static void answer(
        final LoopbackOperationTransport initiator, final int answerAt, final int operation, final int status)
    {
        if (answerAt >= 0)
        {
            final AtomicBuffer a = initiator.answers.buffer();
            a.putInt(answerAt + ANSWER_OPERATION, operation);
            a.putInt(answerAt + ANSWER_STATUS, status < 0 ? -status : 0);
            initiator.answers.commit(answerAt);
        }
    }

    /**
     * A message this domain cannot take yet (its endpoint's receive CQ is full, or no receive and no room to store
     * it): kept, in order, in the held ring, so that the requests behind it (RMA, atomics, other peers) are not
     * held up. An eager message (copied, up to the eager threshold, no delivery completion asked) is answered now
     * (its sender's buffer is free); the others are answered when delivered. One too large for the held ring stays
     * at the head of the request ring.
     */
    private ControlledMessageHandler.Action hold(final DirectBuffer buffer, final int index, final int length)
    {
        final int at = length > held.maxMsgLength() ? -1 : held.tryClaim(RECORD_TYPE, length);
        if (at < 0)
        {
            return ControlledMessageHandler.Action.ABORT;
        }
        final AtomicBuffer h = held.buffer();
        h.putBytes(at, buffer, index, length);
        final int bits = buffer.getInt(index + BITS);
        if ((bits & (BIT_BY_ADDRESS | BIT_DELIVERY)) == 0 && buffer.getLong(index + LENGTH) <= COPY_LIMIT)
        {
            final long sourceKey = buffer.getLong(index + SOURCE_KEY);
            final LoopbackOperationTransport initiator = DOMAINS.get((int) (sourceKey >>> 32));
            final int answerAt = null == initiator ? -1 : initiator.answers.tryClaim(RECORD_TYPE, ANSWER_LENGTH);
            if (null != initiator && answerAt < 0)
            {
                held.abort(at);
                return ControlledMessageHandler.Action.ABORT;
            }
            answer(initiator, answerAt, buffer.getInt(index + OPERATION), 0);
            h.putInt(at + BITS, bits | BIT_ANSWERED);
        }
        held.commit(at);
        heldCount++;
        return ControlledMessageHandler.Action.CONTINUE;
    }

    private ControlledMessageHandler.Action onHeld(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final boolean answered = (buffer.getInt(index + BITS) & BIT_ANSWERED) != 0;
        final long sourceKey = buffer.getLong(index + SOURCE_KEY);
        final LoopbackOperationTransport initiator = answered ? null : DOMAINS.get((int) (sourceKey >>> 32));
        int answerAt = -1;
        if (null != initiator)
        {
            answerAt = initiator.answers.tryClaim(RECORD_TYPE, ANSWER_LENGTH);
            if (answerAt < 0)
            {
                return ControlledMessageHandler.Action.ABORT;
            }
        }
        final int status = execute(buffer, index, sourceKey);
        if (OperationContext.BUSY == status)
        {
            if (answerAt >= 0)
            {
                initiator.answers.abort(answerAt);
            }
            return ControlledMessageHandler.Action.ABORT;
        }
        heldCount--;
        REQUESTS.incrementAndGet();
        answer(initiator, answerAt, buffer.getInt(index + OPERATION), status);
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /**
     * @return 1 done, {@link OperationContext#BUSY} to try again later, or a negative errno for the initiator.
     */
    private int execute(final DirectBuffer b, final int index, final long sourceKey)
    {
        final int opcode = b.getInt(index + OPCODE);
        final int endpoint = b.getInt(index + ENDPOINT);
        final int bits = b.getInt(index + BITS);
        final long length = b.getLong(index + LENGTH);
        final int remote = b.getInt(index + REMOTE_COUNT);
        final int localListed = b.getInt(index + LOCAL_COUNT);
        final int resultSegments = b.getInt(index + RESULT_COUNT);
        final int remoteAt = index + HEADER;
        final int localAt = remoteAt + remote * REMOTE_ENTRY;
        final int resultAt = localAt + localListed * SEGMENT_ENTRY;
        final long payload = b.addressOffset() + resultAt + resultSegments * SEGMENT_ENTRY;
        final boolean byAddress = (bits & BIT_BY_ADDRESS) != 0;
        final boolean hasData = (bits & BIT_HAS_DATA) != 0;
        final long data = b.getLong(index + DATA);
        if (OperationCommand.SEND == opcode || OperationCommand.TAGGED_SEND == opcode)
        {
            final long from = byAddress ? b.getLong(localAt) : payload;
            final int delivered = context.deliver(endpoint, sourceKey, OperationCommand.TAGGED_SEND == opcode,
                b.getLong(index + TAG), data, hasData, from, length);
            if (OperationContext.BUSY == delivered || Errno.EAGAIN.negated() == delivered)
            {
                // A full receive CQ, or no receive and no room to store it: the sender waits, nothing is lost.
                return OperationContext.BUSY;
            }
            // As the runtime's protocol: a message for a closed endpoint fails a delivery-complete send and a send
            // above the eager threshold (whose sender waits for the receiver); a plain eager message is dropped.
            return delivered < 0 && ((bits & BIT_DELIVERY) != 0 || length > COPY_LIMIT) ? delivered : 1;
        }
        if (!context.endpointOpen(endpoint))
        {
            return Errno.ECONNREFUSED.negated();
        }
        switch (opcode)
        {
            case OperationCommand.WRITE:
            {
                // The target's completion first: without room for it the write is refused, memory untouched.
                final int reserved = hasData ? context.reserveRemoteData(endpoint) : OperationContext.DELIVERED;
                if (reserved < 0)
                {
                    return reserved;
                }
                final long verified = verify(b, remoteAt, remote, Flags.REMOTE_WRITE, 1);
                if (verified < 0)
                {
                    if (hasData)
                    {
                        context.releaseRemoteData(endpoint);
                    }
                    return (int) verified;
                }
                final int sources = byAddress ?
                    readSegments(b, localAt, localListed, srcAddress, srcLength) : single(payload, length);
                copy(sources, remote, length);
                context.remoteWriteDone(endpoint, length, hasData, data);
                return 1;
            }
            case OperationCommand.READ:
            {
                final long verified = verify(b, remoteAt, remote, Flags.REMOTE_READ, 1);
                if (verified < 0)
                {
                    return (int) verified;
                }
                // Copy from the checked ranges (as sources) into the initiator's buffers (as destinations).
                for (int k = 0; k < remote; k++)
                {
                    srcAddress[k] = dstAddress[k];
                    srcLength[k] = dstLength[k];
                }
                final int destinations = readSegments(b, localAt, localListed, dstAddress, dstLength);
                copy(remote, destinations, length);
                context.remoteReadDone(endpoint);
                return 1;
            }
            case OperationCommand.ATOMIC:
                return atomic(b, index, endpoint, remoteAt, remote, resultAt, resultSegments, payload, length);
            default:
                return Errno.ENOSYS.negated();
        }
    }

    private int atomic(
        final DirectBuffer b,
        final int index,
        final int endpoint,
        final int remoteAt,
        final int remote,
        final int resultAt,
        final int resultSegments,
        final long operands,
        final long length)
    {
        final int kind = b.getInt(index + ATOMIC_KIND);
        final int op = b.getInt(index + ATOMIC_OP);
        final AtomicDatatype type = AtomicDatatype.fromValue(b.getInt(index + ATOMIC_TYPE));
        if (null == type || length > scratch.capacity())
        {
            return Errno.EINVAL.negated();
        }
        final boolean readOnly = AtomicOp.ATOMIC_READ.value() == op;
        final long access = OperationCommand.ATOMIC_BASE == kind ? Flags.REMOTE_WRITE :
            (readOnly ? Flags.REMOTE_READ : Flags.REMOTE_READ | Flags.REMOTE_WRITE);
        final long verified = verify(b, remoteAt, remote, access, type.size());
        if (verified < 0)
        {
            return (int) verified;
        }
        final long results = scratch.addressOffset();
        final long compare = operands + length;
        long done = 0;
        for (int k = 0; k < remote; k++)
        {
            final int count = (int) (dstLength[k] / type.size());
            final int status = context.atomic(kind, op, type.value(), dstAddress[k], operands + done,
                compare + done, results + done, count);
            if (status < 0)
            {
                return status;
            }
            done += dstLength[k];
        }
        if (OperationCommand.ATOMIC_BASE != kind)
        {
            // Old values go to the initiator's result buffers.
            final int destinations = readSegments(b, resultAt, resultSegments, dstAddress, dstLength);
            srcAddress[0] = results;
            srcLength[0] = length;
            copy(1, destinations, length);
        }
        return readOnly ? context.remoteReadDone(endpoint) : context.remoteWriteDone(endpoint, length, false, 0);
    }

    /**
     * Check every remote range (all before any byte moves) and keep their raw addresses in {@link #dstAddress}.
     *
     * @return the number of ranges, or a negative errno.
     */
    private long verify(final DirectBuffer b, final int at, final int count, final long access, final int unit)
    {
        for (int k = 0; k < count; k++)
        {
            final int entry = at + k * REMOTE_ENTRY;
            final long len = b.getLong(entry + 8);
            if (len % unit != 0)
            {
                return Errno.EINVAL.negated();
            }
            final long raw = context.verifyRemote(b.getLong(entry + 16), b.getLong(entry), len, access);
            if (raw < 0)
            {
                return raw;
            }
            dstAddress[k] = raw;
            dstLength[k] = len;
        }
        return count;
    }

    private static int readSegments(
        final DirectBuffer b, final int at, final int count, final long[] address, final long[] length)
    {
        for (int k = 0; k < count; k++)
        {
            address[k] = b.getLong(at + k * SEGMENT_ENTRY);
            length[k] = b.getLong(at + k * SEGMENT_ENTRY + 8);
        }
        return count;
    }

    private int single(final long address, final long length)
    {
        srcAddress[0] = address;
        srcLength[0] = length;
        return 1;
    }

    /**
     * Copy {@code total} bytes from the source segments ({@link #srcAddress}) to the destination segments
     * ({@link #dstAddress}), each list in order, whatever their boundaries.
     */
    private void copy(final int sources, final int destinations, final long total)
    {
        int s = 0;
        int d = 0;
        long sOff = 0;
        long dOff = 0;
        long left = total;
        while (left > 0 && s < sources && d < destinations)
        {
            final long n = Math.min(left, Math.min(srcLength[s] - sOff, dstLength[d] - dOff));
            if (n > 0)
            {
                UnsafeApi.copyMemory(srcAddress[s] + sOff, dstAddress[d] + dOff, n);
            }
            sOff += n;
            dOff += n;
            left -= n;
            if (sOff == srcLength[s])
            {
                s++;
                sOff = 0;
            }
            if (dOff == dstLength[d])
            {
                d++;
                dOff = 0;
            }
        }
    }
}
