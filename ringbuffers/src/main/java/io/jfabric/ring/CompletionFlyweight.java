/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring;

import org.agrona.DirectBuffer;

import static io.jfabric.ring.CompletionRingDescriptor.BUFFER_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.CONTEXT_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.DATA_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.ERRNO_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.FLAGS_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.LENGTH_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.OVERFLOW_LENGTH_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.PROV_ERRNO_OFFSET;
import static io.jfabric.ring.CompletionRingDescriptor.TAG_OFFSET;

/**
 * Decodes a completion entry ({@link CompletionRingDescriptor}) in place. Create one per reader, wrap it in
 * {@link CompletionHandler#onCompletion} and read the fields the CQ format needs; nothing is copied.
 * <p>
 * Threading: not thread-safe; one instance per reading thread, valid only while the handler call lasts.
 */
public final class CompletionFlyweight
{
    private DirectBuffer buffer;
    private int offset;

    /**
     * Point the flyweight at an entry.
     *
     * @param buffer holding the entry.
     * @param offset of the entry.
     * @return this for a fluent API.
     */
    public CompletionFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /**
     * The operation context the application passed with the operation.
     *
     * @return the op context.
     */
    public long context()
    {
        return buffer.getLong(offset + CONTEXT_OFFSET);
    }

    /**
     * The completion flags.
     *
     * @return the flags.
     */
    public long flags()
    {
        return buffer.getLong(offset + FLAGS_OFFSET);
    }

    /**
     * The length of the data transferred (or, in an error entry, the length of the operation).
     *
     * @return the length in bytes.
     */
    public long length()
    {
        return buffer.getLong(offset + LENGTH_OFFSET);
    }

    /**
     * The address of the data buffer, for FI_MULTI_RECV and similar formats.
     *
     * @return the buffer address.
     */
    public long bufferAddress()
    {
        return buffer.getLong(offset + BUFFER_OFFSET);
    }

    /**
     * The remote CQ data.
     *
     * @return the data.
     */
    public long data()
    {
        return buffer.getLong(offset + DATA_OFFSET);
    }

    /**
     * The tag of a tagged completion.
     *
     * @return the tag.
     */
    public long tag()
    {
        return buffer.getLong(offset + TAG_OFFSET);
    }

    /**
     * Whether this is an error entry.
     *
     * @return true if {@link #errno()} is not zero.
     */
    public boolean isError()
    {
        return 0 != buffer.getInt(offset + ERRNO_OFFSET);
    }

    /**
     * The positive fi_errno of an error entry, 0 for a success entry.
     *
     * @return the errno.
     */
    public int errno()
    {
        return buffer.getInt(offset + ERRNO_OFFSET);
    }

    /**
     * The provider-specific errno of an error entry.
     *
     * @return the provider errno.
     */
    public int providerErrno()
    {
        return buffer.getInt(offset + PROV_ERRNO_OFFSET);
    }

    /**
     * The number of bytes that did not fit (ETRUNC), 0 otherwise.
     *
     * @return the overflow length.
     */
    public long overflowLength()
    {
        return buffer.getLong(offset + OVERFLOW_LENGTH_OFFSET);
    }
}
