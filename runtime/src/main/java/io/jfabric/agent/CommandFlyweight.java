package io.jfabric.agent;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;

/**
 * Reads and writes the fields of one command ({@link CommandDescriptor} has the layout and its diagram) over a ring
 * record, so that no command field is read or written by raw offset anywhere else. A field that holds different
 * things for different opcodes has one accessor per meaning ({@link #remoteAddress()} and {@link #tag()} read the
 * same bytes), so that code says what it reads.
 * <p>
 * Threading: not thread-safe; an instance is owned by one thread (the agent decoding, or a producer encoding into a
 * record it claimed).
 */
final class CommandFlyweight
{
    private DirectBuffer buffer;
    private MutableDirectBuffer mutable;
    private int offset;
    /** The wrapped buffer's array (null for off-heap memory) and the header's first byte: the fixed fields. */
    private Object base;
    private long address;

    /**
     * Wrap a command to read it.
     *
     * @param buffer holding the record.
     * @param offset of the record's first byte.
     * @return this.
     */
    CommandFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.mutable = null;
        this.offset = offset;
        locate(buffer, offset);
        return this;
    }

    /**
     * Wrap a claimed record to write a command into it.
     *
     * @param buffer holding the record.
     * @param offset of the record's first byte.
     * @return this.
     */
    CommandFlyweight wrapForEncode(final MutableDirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.mutable = buffer;
        this.offset = offset;
        locate(buffer, offset);
        return this;
    }

    /**
     * The fixed header is checked once, here, against the buffer's capacity; its fields are then read and written
     * without a bounds check per field (Agrona's checks were ~10 % of a round trip's profile).
     */
    private void locate(final DirectBuffer buffer, final int offset)
    {
        if (offset < 0 || offset > buffer.capacity() - CommandDescriptor.HEADER_LENGTH)
        {
            throw new IndexOutOfBoundsException("command header at " + offset + " of a " + buffer.capacity() +
                "-byte buffer");
        }
        base = buffer.byteArray();
        address = buffer.addressOffset() + offset;
    }

    /**
     * @return the base of writes: only a flyweight wrapped to encode writes.
     */
    private Object writable()
    {
        if (null == mutable)
        {
            throw new IllegalStateException("command wrapped to read, not to encode");
        }
        return base;
    }

    /**
     * @return the wrapped buffer.
     */
    DirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return the record's first byte in {@link #buffer()}.
     */
    int offset()
    {
        return offset;
    }

    /**
     * @return the offset in {@link #buffer()} of what follows the fixed part (inline payload or iov entries).
     */
    int bodyOffset()
    {
        return offset + CommandDescriptor.HEADER_LENGTH;
    }

    /**
     * @return the offset in {@link #buffer()} of an atomic's inline operands.
     */
    int atomicBodyOffset()
    {
        return offset + CommandDescriptor.ATOMIC_HEADER_LENGTH;
    }

    /**
     * @param i an iov entry's index.
     * @return the address of iov entry {@code i}.
     */
    long iovAddress(final int i)
    {
        return buffer.getLong(bodyOffset() + i * CommandDescriptor.IOV_ENTRY_LENGTH);
    }

    /**
     * @param i an iov entry's index.
     * @return the length of iov entry {@code i}.
     */
    long iovLength(final int i)
    {
        return buffer.getLong(bodyOffset() + i * CommandDescriptor.IOV_ENTRY_LENGTH + 8);
    }

    /**
     * @param i     an iov entry's index.
     * @param address its address.
     * @param length  its length.
     * @return this.
     */
    CommandFlyweight iov(final int i, final long address, final long length)
    {
        final int at = bodyOffset() + i * CommandDescriptor.IOV_ENTRY_LENGTH;
        mutable.putLong(at, address);
        mutable.putLong(at + 8, length);
        return this;
    }

    /**
     * @return the {@link PinTable} slot of the operation's buffers, or {@link PinTable#NONE}.
     */
    int pin()
    {
        return UnsafeApi.getInt(base, address + CommandDescriptor.PIN_OFFSET) - 1;
    }

    /**
     * @param slot the {@link PinTable} slot of the operation's buffers, or {@link PinTable#NONE}.
     * @return this.
     */
    CommandFlyweight pin(final int slot)
    {
        UnsafeApi.putInt(writable(), address + CommandDescriptor.PIN_OFFSET, slot + 1);
        return this;
    }

    /**
     * @return the endpoint index in its domain.
     */
    int endpoint()
    {
        return UnsafeApi.getInt(base, address + CommandDescriptor.ENDPOINT_OFFSET);
    }

    /**
     * @param value the endpoint index in its domain.
     * @return this.
     */
    CommandFlyweight endpoint(final int value)
    {
        UnsafeApi.putInt(writable(), address + CommandDescriptor.ENDPOINT_OFFSET, value);
        return this;
    }

    /**
     * @return the endpoint an {@code OP_EP_CLOSE} closes (the {@code endpoint} field).
     */
    int closingEndpoint()
    {
        return UnsafeApi.getInt(base, address + CommandDescriptor.ENDPOINT_OFFSET);
    }

    /**
     * @param value the endpoint an {@code OP_EP_CLOSE} closes.
     * @return this.
     */
    CommandFlyweight closingEndpoint(final int value)
    {
        UnsafeApi.putInt(writable(), address + CommandDescriptor.ENDPOINT_OFFSET, value);
        return this;
    }

    /**
     * @return the iov count (0: one buffer) or the inline payload length.
     */
    int count()
    {
        return UnsafeApi.getInt(base, address + CommandDescriptor.COUNT_OFFSET);
    }

    /**
     * @param value the iov count (0: one buffer) or the inline payload length.
     * @return this.
     */
    CommandFlyweight count(final int value)
    {
        UnsafeApi.putInt(writable(), address + CommandDescriptor.COUNT_OFFSET, value);
        return this;
    }

    /**
     * @return the segment count of an {@code OP_MR_REG} (the {@code count} field).
     */
    int segmentCount()
    {
        return UnsafeApi.getInt(base, address + CommandDescriptor.COUNT_OFFSET);
    }

    /**
     * @param value the segment count of an {@code OP_MR_REG}.
     * @return this.
     */
    CommandFlyweight segmentCount(final int value)
    {
        UnsafeApi.putInt(writable(), address + CommandDescriptor.COUNT_OFFSET, value);
        return this;
    }

    /**
     * @return the operation flags ({@code Flags.*} and the internal {@code FLAG_*}).
     */
    long flags()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.FLAGS_OFFSET);
    }

    /**
     * @param value the operation flags ({@code Flags.*} and the internal {@code FLAG_*}).
     * @return this.
     */
    CommandFlyweight flags(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.FLAGS_OFFSET, value);
        return this;
    }

    /**
     * @return the access flags of an {@code OP_MR_REG} (the {@code flags} field).
     */
    long access()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.FLAGS_OFFSET);
    }

    /**
     * @param value the access flags of an {@code OP_MR_REG}.
     * @return this.
     */
    CommandFlyweight access(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.FLAGS_OFFSET, value);
        return this;
    }

    /**
     * @return the operation context.
     */
    long context()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.CONTEXT_OFFSET);
    }

    /**
     * @param value the operation context.
     * @return this.
     */
    CommandFlyweight context(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.CONTEXT_OFFSET, value);
        return this;
    }

    /**
     * @return the address vector id of {@code OP_AV_INSERT}/{@code OP_AV_REMOVE} (the {@code context} field).
     */
    long avId()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.CONTEXT_OFFSET);
    }

    /**
     * @param value the address vector id of {@code OP_AV_INSERT}/{@code OP_AV_REMOVE}.
     * @return this.
     */
    CommandFlyweight avId(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.CONTEXT_OFFSET, value);
        return this;
    }

    /**
     * @return the buffer address (atomics with {@code FLAG_IOV}: the record offset of the operand list).
     */
    long address()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.ADDRESS_OFFSET);
    }

    /**
     * @param value the buffer address (atomics with {@code FLAG_IOV}: the record offset of the operand list).
     * @return this.
     */
    CommandFlyweight address(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.ADDRESS_OFFSET, value);
        return this;
    }

    /**
     * @return the buffer length (total bytes of an iov).
     */
    long length()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.LENGTH_OFFSET);
    }

    /**
     * @param value the buffer length (total bytes of an iov).
     * @return this.
     */
    CommandFlyweight length(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.LENGTH_OFFSET, value);
        return this;
    }

    /**
     * @return the minimum of an {@code OP_MIN_MULTI_RECV} (the {@code length} field).
     */
    long minMultiRecv()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.LENGTH_OFFSET);
    }

    /**
     * @param value the minimum of an {@code OP_MIN_MULTI_RECV}.
     * @return this.
     */
    CommandFlyweight minMultiRecv(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.LENGTH_OFFSET, value);
        return this;
    }

    /**
     * @return the peer key (sends, RMA, atomics, AV changes) or the source fi_addr (receives, tsearch).
     */
    long peer()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.PEER_OFFSET);
    }

    /**
     * @param value the peer key (sends, RMA, atomics, AV changes) or the source fi_addr (receives, tsearch).
     * @return this.
     */
    CommandFlyweight peer(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.PEER_OFFSET, value);
        return this;
    }

    /**
     * @return the tag (tagged sends and receives).
     */
    long tag()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.TAG_OFFSET);
    }

    /**
     * @param value the tag (tagged sends and receives).
     * @return this.
     */
    CommandFlyweight tag(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.TAG_OFFSET, value);
        return this;
    }

    /**
     * @return the remote address of an RMA or atomic to one remote range (the {@code tag} field).
     */
    long remoteAddress()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.TAG_OFFSET);
    }

    /**
     * @param value the remote address of an RMA or atomic to one remote range.
     * @return this.
     */
    CommandFlyweight remoteAddress(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.TAG_OFFSET, value);
        return this;
    }

    /**
     * @return the record offset of the remote list of a command with {@code FLAG_RMA_IOV} (the {@code tag} field).
     */
    long remoteListOffset()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.TAG_OFFSET);
    }

    /**
     * @param value the record offset of the remote list of a command with {@code FLAG_RMA_IOV}.
     * @return this.
     */
    CommandFlyweight remoteListOffset(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.TAG_OFFSET, value);
        return this;
    }

    /**
     * @return the requested key of an {@code OP_MR_REG}, the key of an {@code OP_MR_CLOSE} (the {@code tag} field).
     */
    long mrKey()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.TAG_OFFSET);
    }

    /**
     * @param value the requested key of an {@code OP_MR_REG}, the key of an {@code OP_MR_CLOSE}.
     * @return this.
     */
    CommandFlyweight mrKey(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.TAG_OFFSET, value);
        return this;
    }

    /**
     * @return the fi_addr of an {@code OP_AV_INSERT} (the {@code tag} field).
     */
    long fiAddr()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.TAG_OFFSET);
    }

    /**
     * @param value the fi_addr of an {@code OP_AV_INSERT}.
     * @return this.
     */
    CommandFlyweight fiAddr(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.TAG_OFFSET, value);
        return this;
    }

    /**
     * @return the receive ring position an {@code OP_CANCEL} waits for (the {@code tag} field).
     */
    long cancelPosition()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.TAG_OFFSET);
    }

    /**
     * @param value the receive ring position an {@code OP_CANCEL} waits for.
     * @return this.
     */
    CommandFlyweight cancelPosition(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.TAG_OFFSET, value);
        return this;
    }

    /**
     * @return the ignore mask (tagged receives, tsearch).
     */
    long ignore()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.IGNORE_OFFSET);
    }

    /**
     * @param value the ignore mask (tagged receives, tsearch).
     * @return this.
     */
    CommandFlyweight ignore(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.IGNORE_OFFSET, value);
        return this;
    }

    /**
     * @return the MR key of an RMA or atomic to one remote range (the {@code ignore} field).
     */
    long rmaKey()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.IGNORE_OFFSET);
    }

    /**
     * @param value the MR key of an RMA or atomic to one remote range.
     * @return this.
     */
    CommandFlyweight rmaKey(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.IGNORE_OFFSET, value);
        return this;
    }

    /**
     * @return the remote CQ data.
     */
    long data()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.DATA_OFFSET);
    }

    /**
     * @param value the remote CQ data.
     * @return this.
     */
    CommandFlyweight data(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.DATA_OFFSET, value);
        return this;
    }

    /**
     * @return the {@code CommandDescriptor.atomicCode} of an atomic (the {@code data} field).
     */
    long atomicCode()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.DATA_OFFSET);
    }

    /**
     * @param value the {@code CommandDescriptor.atomicCode} of an atomic.
     * @return this.
     */
    CommandFlyweight atomicCode(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.DATA_OFFSET, value);
        return this;
    }

    /**
     * @return the reply sequence of a control command that is answered (the {@code data} field).
     */
    long replySequence()
    {
        return UnsafeApi.getLong(base, address + CommandDescriptor.DATA_OFFSET);
    }

    /**
     * @param value the reply sequence of a control command that is answered.
     * @return this.
     */
    CommandFlyweight replySequence(final long value)
    {
        UnsafeApi.putLong(writable(), address + CommandDescriptor.DATA_OFFSET, value);
        return this;
    }

    /**
     * @return an atomic's result address (with {@code FLAG_IOV}: the record offset of its list).
     */
    long resultAddress()
    {
        return buffer.getLong(offset + CommandDescriptor.RESULT_ADDRESS_OFFSET);
    }

    /**
     * @param value an atomic's result address (with {@code FLAG_IOV}: the record offset of its list).
     * @return this.
     */
    CommandFlyweight resultAddress(final long value)
    {
        mutable.putLong(offset + CommandDescriptor.RESULT_ADDRESS_OFFSET, value);
        return this;
    }

    /**
     * @return an atomic's compare address (with {@code FLAG_IOV}: the record offset of its list).
     */
    long compareAddress()
    {
        return buffer.getLong(offset + CommandDescriptor.COMPARE_ADDRESS_OFFSET);
    }

    /**
     * @param value an atomic's compare address (with {@code FLAG_IOV}: the record offset of its list).
     * @return this.
     */
    CommandFlyweight compareAddress(final long value)
    {
        mutable.putLong(offset + CommandDescriptor.COMPARE_ADDRESS_OFFSET, value);
        return this;
    }
}
