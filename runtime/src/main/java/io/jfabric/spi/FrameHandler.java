package io.jfabric.spi;

import org.agrona.DirectBuffer;

/**
 * Receives inbound frames from a {@link DomainTransport}.
 * <p>
 * Threading: called on the domain agent thread only.
 */
@FunctionalInterface
public interface FrameHandler
{
    /**
     * One inbound frame.
     *
     * @param buffer holding the frame; valid only during the call.
     * @param offset where the frame starts.
     * @param length frame bytes.
     * @return true when consumed; false to leave it in place and stop this poll (back-pressure).
     */
    boolean onFrame(DirectBuffer buffer, int offset, int length);
}
