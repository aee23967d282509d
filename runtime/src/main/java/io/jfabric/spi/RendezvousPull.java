package io.jfabric.spi;

/**
 * A rendezvous arrival that matched a receive ({@link OperationContext#arrive}): where the back-end pulls the
 * message's bytes to. The destination is the matched receive's buffer from the receive's offset (a multi-recv
 * buffer's slice) or its iov segments, cut to {@link #length()} bytes (the message, or less when the receive is
 * smaller: the rest is truncated and the receive completes with {@code FI_ETRUNC}). The view is valid only during
 * {@link OperationBackend#pull}: the back-end copies what it needs. The destination stays valid (pinned) until the
 * back-end ends the pull with {@link OperationContext#arrivalDone}, exactly once.
 * <p>
 * Threading: the domain agent's thread only.
 */
public interface RendezvousPull
{
    /**
     * @return the back-end's own id of the arrival, as given to {@link OperationContext#arrive}.
     */
    long arrival();

    /**
     * @return the runtime's id of the matched arrival, for {@link OperationContext#arrivalDone}.
     */
    int handle();

    /**
     * @return the message's length, as announced.
     */
    long messageLength();

    /**
     * @return bytes to move: {@code min(messageLength(), the receive's room)}, the sum of the segments' lengths.
     */
    long length();

    /**
     * @return destination segments (1 for a buffer, up to the receive's iov count), 0 when {@link #length()} is 0.
     */
    int segmentCount();

    /**
     * @param index 0 .. {@link #segmentCount()} - 1.
     * @return raw address of the segment's first byte.
     */
    long segmentAddress(int index);

    /**
     * @param index 0 .. {@link #segmentCount()} - 1.
     * @return bytes of the message that go into the segment.
     */
    long segmentLength(int index);
}
