package io.jfabric.agent;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;

/**
 * Reads and writes the header fields of one frame ({@link FrameDescriptor} has the layout and its diagram) over a
 * buffer, so that no frame field is read or written by raw offset anywhere else. Wrap it at a frame's first byte;
 * the setters need a mutable buffer (the agent's own header scratch), the getters take any.
 * <p>
 * Threading: not thread-safe; each instance is owned by one domain agent (one to read arrivals, one to encode).
 */
final class FrameFlyweight
{
    private DirectBuffer buffer;
    private MutableDirectBuffer mutable;
    private int offset;
    /** The wrapped buffer's array (null for off-heap memory) and the header's first byte: the fixed fields. */
    private Object base;
    private long address;

    /**
     * Wrap a frame to read it.
     *
     * @param buffer holding the frame.
     * @param offset of its first byte.
     * @return this.
     */
    FrameFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.mutable = null;
        this.offset = offset;
        locate(buffer, offset);
        return this;
    }

    /**
     * Wrap a frame to write it.
     *
     * @param buffer to write the frame into.
     * @param offset of its first byte.
     * @return this.
     */
    FrameFlyweight wrapForEncode(final MutableDirectBuffer buffer, final int offset)
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
        if (offset < 0 || offset > buffer.capacity() - FrameDescriptor.HEADER_LENGTH)
        {
            throw new IndexOutOfBoundsException("frame header at " + offset + " of a " + buffer.capacity() +
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
            throw new IllegalStateException("frame wrapped to read, not to encode");
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
     * @return the frame's first byte in {@link #buffer()}.
     */
    int offset()
    {
        return offset;
    }

    /**
     * @return the offset in {@link #buffer()} of the payload of a frame without RMA extension.
     */
    int payloadOffset()
    {
        return offset + FrameDescriptor.HEADER_LENGTH;
    }

    /**
     * @return the offset in {@link #buffer()} of what follows the RMA extension (RMA frames, RTS, CTS, WRITE_RTS).
     */
    int rmaPayloadOffset()
    {
        return offset + FrameDescriptor.RMA_HEADER_LENGTH;
    }

    /**
     * @return the native address of the payload of a frame without RMA extension.
     */
    long payloadAddress()
    {
        return buffer.addressOffset() + offset + FrameDescriptor.HEADER_LENGTH;
    }

    /**
     * @return the version byte.
     */
    byte version()
    {
        return UnsafeApi.getByte(base, address + FrameDescriptor.VERSION_OFFSET);
    }

    /**
     * @param value the version byte.
     * @return this.
     */
    FrameFlyweight version(final byte value)
    {
        UnsafeApi.putByte(writable(), address + FrameDescriptor.VERSION_OFFSET, value);
        return this;
    }

    /**
     * @return the opcode ({@code FrameDescriptor.OPCODE_*}).
     */
    byte opcode()
    {
        return UnsafeApi.getByte(base, address + FrameDescriptor.OPCODE_OFFSET);
    }

    /**
     * @param value the opcode.
     * @return this.
     */
    FrameFlyweight opcode(final byte value)
    {
        UnsafeApi.putByte(writable(), address + FrameDescriptor.OPCODE_OFFSET, value);
        return this;
    }

    /**
     * @return the destination endpoint's index in the receiving domain.
     */
    int dstEndpoint()
    {
        return UnsafeApi.getInt(base, address + FrameDescriptor.DST_ENDPOINT_OFFSET);
    }

    /**
     * @param value the destination endpoint's index.
     * @return this.
     */
    FrameFlyweight dstEndpoint(final int value)
    {
        UnsafeApi.putInt(writable(), address + FrameDescriptor.DST_ENDPOINT_OFFSET, value);
        return this;
    }

    /**
     * @return the source peer key (as the receiving transport knows the sender).
     */
    long srcKey()
    {
        return UnsafeApi.getLong(base, address + FrameDescriptor.SRC_KEY_OFFSET);
    }

    /**
     * @param value the sending endpoint's local key.
     * @return this.
     */
    FrameFlyweight srcKey(final long value)
    {
        UnsafeApi.putLong(writable(), address + FrameDescriptor.SRC_KEY_OFFSET, value);
        return this;
    }

    /**
     * @return the tag field (a message's tag; what else it holds per opcode is in {@link FrameDescriptor}).
     */
    long tag()
    {
        return UnsafeApi.getLong(base, address + FrameDescriptor.TAG_OFFSET);
    }

    /**
     * @param value the tag field.
     * @return this.
     */
    FrameFlyweight tag(final long value)
    {
        UnsafeApi.putLong(writable(), address + FrameDescriptor.TAG_OFFSET, value);
        return this;
    }

    /**
     * @return the data field (remote CQ data, a status, a slot; per opcode in {@link FrameDescriptor}).
     */
    long data()
    {
        return UnsafeApi.getLong(base, address + FrameDescriptor.DATA_OFFSET);
    }

    /**
     * @param value the data field.
     * @return this.
     */
    FrameFlyweight data(final long value)
    {
        UnsafeApi.putLong(writable(), address + FrameDescriptor.DATA_OFFSET, value);
        return this;
    }

    /**
     * @return the message or chunk length.
     */
    long length()
    {
        return UnsafeApi.getLong(base, address + FrameDescriptor.LENGTH_OFFSET);
    }

    /**
     * @param value the length.
     * @return this.
     */
    FrameFlyweight length(final long value)
    {
        UnsafeApi.putLong(writable(), address + FrameDescriptor.LENGTH_OFFSET, value);
        return this;
    }

    /**
     * @return the frame flags ({@code FrameDescriptor.FLAG_*}).
     */
    long flags()
    {
        return UnsafeApi.getLong(base, address + FrameDescriptor.FLAGS_OFFSET);
    }

    /**
     * @param value the frame flags.
     * @return this.
     */
    FrameFlyweight flags(final long value)
    {
        UnsafeApi.putLong(writable(), address + FrameDescriptor.FLAGS_OFFSET, value);
        return this;
    }

    /**
     * @return the cookie: the initiator's operation context or pin cookie, echoed in answers.
     */
    long cookie()
    {
        return UnsafeApi.getLong(base, address + FrameDescriptor.COOKIE_OFFSET);
    }

    /**
     * @param value the cookie.
     * @return this.
     */
    FrameFlyweight cookie(final long value)
    {
        UnsafeApi.putLong(writable(), address + FrameDescriptor.COOKIE_OFFSET, value);
        return this;
    }

    /**
     * @return the sequence (or, in a failed last chunk, the errno).
     */
    long sequence()
    {
        return UnsafeApi.getLong(base, address + FrameDescriptor.SEQUENCE_OFFSET);
    }

    /**
     * @param value the sequence.
     * @return this.
     */
    FrameFlyweight sequence(final long value)
    {
        UnsafeApi.putLong(writable(), address + FrameDescriptor.SEQUENCE_OFFSET, value);
        return this;
    }

    /**
     * @return the remote address of the RMA extension.
     */
    long rmaAddress()
    {
        return buffer.getLong(offset + FrameDescriptor.RMA_ADDRESS_OFFSET);
    }

    /**
     * @param value the remote address of the RMA extension.
     * @return this.
     */
    FrameFlyweight rmaAddress(final long value)
    {
        mutable.putLong(offset + FrameDescriptor.RMA_ADDRESS_OFFSET, value);
        return this;
    }

    /**
     * @return the MR key of the RMA extension.
     */
    long rmaKey()
    {
        return buffer.getLong(offset + FrameDescriptor.RMA_KEY_OFFSET);
    }

    /**
     * @param value the MR key of the RMA extension.
     * @return this.
     */
    FrameFlyweight rmaKey(final long value)
    {
        mutable.putLong(offset + FrameDescriptor.RMA_KEY_OFFSET, value);
        return this;
    }
}
