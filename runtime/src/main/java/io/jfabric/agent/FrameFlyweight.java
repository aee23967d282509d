package io.jfabric.agent;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

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
        return this;
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
        return buffer.getByte(offset + FrameDescriptor.VERSION_OFFSET);
    }

    /**
     * @param value the version byte.
     * @return this.
     */
    FrameFlyweight version(final byte value)
    {
        mutable.putByte(offset + FrameDescriptor.VERSION_OFFSET, value);
        return this;
    }

    /**
     * @return the opcode ({@code FrameDescriptor.OPCODE_*}).
     */
    byte opcode()
    {
        return buffer.getByte(offset + FrameDescriptor.OPCODE_OFFSET);
    }

    /**
     * @param value the opcode.
     * @return this.
     */
    FrameFlyweight opcode(final byte value)
    {
        mutable.putByte(offset + FrameDescriptor.OPCODE_OFFSET, value);
        return this;
    }

    /**
     * @return the destination endpoint's index in the receiving domain.
     */
    int dstEndpoint()
    {
        return buffer.getInt(offset + FrameDescriptor.DST_ENDPOINT_OFFSET);
    }

    /**
     * @param value the destination endpoint's index.
     * @return this.
     */
    FrameFlyweight dstEndpoint(final int value)
    {
        mutable.putInt(offset + FrameDescriptor.DST_ENDPOINT_OFFSET, value);
        return this;
    }

    /**
     * @return the source peer key (as the receiving transport knows the sender).
     */
    long srcKey()
    {
        return buffer.getLong(offset + FrameDescriptor.SRC_KEY_OFFSET);
    }

    /**
     * @param value the sending endpoint's local key.
     * @return this.
     */
    FrameFlyweight srcKey(final long value)
    {
        mutable.putLong(offset + FrameDescriptor.SRC_KEY_OFFSET, value);
        return this;
    }

    /**
     * @return the tag field (a message's tag; what else it holds per opcode is in {@link FrameDescriptor}).
     */
    long tag()
    {
        return buffer.getLong(offset + FrameDescriptor.TAG_OFFSET);
    }

    /**
     * @param value the tag field.
     * @return this.
     */
    FrameFlyweight tag(final long value)
    {
        mutable.putLong(offset + FrameDescriptor.TAG_OFFSET, value);
        return this;
    }

    /**
     * @return the data field (remote CQ data, a status, a slot; per opcode in {@link FrameDescriptor}).
     */
    long data()
    {
        return buffer.getLong(offset + FrameDescriptor.DATA_OFFSET);
    }

    /**
     * @param value the data field.
     * @return this.
     */
    FrameFlyweight data(final long value)
    {
        mutable.putLong(offset + FrameDescriptor.DATA_OFFSET, value);
        return this;
    }

    /**
     * @return the message or chunk length.
     */
    long length()
    {
        return buffer.getLong(offset + FrameDescriptor.LENGTH_OFFSET);
    }

    /**
     * @param value the length.
     * @return this.
     */
    FrameFlyweight length(final long value)
    {
        mutable.putLong(offset + FrameDescriptor.LENGTH_OFFSET, value);
        return this;
    }

    /**
     * @return the frame flags ({@code FrameDescriptor.FLAG_*}).
     */
    long flags()
    {
        return buffer.getLong(offset + FrameDescriptor.FLAGS_OFFSET);
    }

    /**
     * @param value the frame flags.
     * @return this.
     */
    FrameFlyweight flags(final long value)
    {
        mutable.putLong(offset + FrameDescriptor.FLAGS_OFFSET, value);
        return this;
    }

    /**
     * @return the cookie: the initiator's operation context or pin cookie, echoed in answers.
     */
    long cookie()
    {
        return buffer.getLong(offset + FrameDescriptor.COOKIE_OFFSET);
    }

    /**
     * @param value the cookie.
     * @return this.
     */
    FrameFlyweight cookie(final long value)
    {
        mutable.putLong(offset + FrameDescriptor.COOKIE_OFFSET, value);
        return this;
    }

    /**
     * @return the sequence (or, in a failed last chunk, the errno).
     */
    long sequence()
    {
        return buffer.getLong(offset + FrameDescriptor.SEQUENCE_OFFSET);
    }

    /**
     * @param value the sequence.
     * @return this.
     */
    FrameFlyweight sequence(final long value)
    {
        mutable.putLong(offset + FrameDescriptor.SEQUENCE_OFFSET, value);
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
