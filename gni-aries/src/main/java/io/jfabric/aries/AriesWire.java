package io.jfabric.aries;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * What the NIC engine needs from a frame transport: send a frame to a peer process named by its wire address,
 * poll inbound frames, learn that a peer went down. Kept small and separate from the runtime's
 * {@code io.jfabric.spi.DomainTransport} so that SPI can change beneath it ({@link ShmAriesWire} adapts it;
 * {@link InJvmWire} is the deterministic in-process one).
 * <p>
 * Threading: {@link #offer} and {@link #poll} are called by the NIC engine's thread only (under the node's lock);
 * {@link #localAddress}, {@link #resolve} and {@link #close} are control-path calls.
 */
public interface AriesWire extends AutoCloseable
{
    /**
     * Receives inbound frames and peer events.
     */
    interface Handler
    {
        /**
         * One inbound frame, valid only during the call.
         *
         * @param buffer holding the frame.
         * @param offset where it starts.
         * @param length its bytes.
         */
        void onFrame(DirectBuffer buffer, int offset, int length);

        /**
         * A peer process can no longer be reached: transactions towards it will not complete.
         *
         * @param peer the peer key from {@link #resolve}.
         */
        void onPeerDown(long peer);
    }

    /**
     * @return this process's wire address, as {@link #resolve} takes it in another process.
     */
    byte[] localAddress();

    /**
     * @param address a wire address.
     * @return a non-negative peer key, or -1 when the address is not one of this wire's.
     */
    long resolve(byte[] address);

    /**
     * @return the largest frame {@link #offer} accepts, header and payload.
     */
    int maxFrameLength();

    /**
     * Send one frame made of a header and a payload.
     *
     * @param peer          a key from {@link #resolve}.
     * @param header        header bytes.
     * @param headerOffset  where they start.
     * @param headerLength  how many.
     * @param payload       payload bytes, null when {@code payloadLength} is 0.
     * @param payloadOffset where they start.
     * @param payloadLength how many.
     * @return 1 when sent, 0 on back-pressure (retry later), a negative errno when the peer cannot be reached.
     */
    int offer(
        long peer, DirectBuffer header, int headerOffset, int headerLength,
        DirectBuffer payload, int payloadOffset, int payloadLength);

    /**
     * Bytes the wire puts in front of a frame on its own medium. A sender that keeps that many zero bytes in front of
     * the header it offers ({@code headerOffset >= headroom()}, the bytes before it zero and left alone) lets the
     * wire send the frame from its buffer as it is instead of copying the header behind a prefix of its own.
     *
     * @return the headroom in bytes; 0 (the default) when the wire needs none.
     */
    default int headroom()
    {
        return 0;
    }

    /**
     * Deliver up to {@code limit} inbound frames.
     *
     * @param handler the receiver.
     * @param limit   most frames.
     * @return frames delivered.
     */
    int poll(Handler handler, int limit);

    @Override
    void close();

    /**
     * A block of this process's shared pool on the wire's medium, which a peer on the same host can map and read
     * directly (the XPMEM-like fast path). Control path, thread-safe.
     *
     * @param length bytes, at least 1.
     * @return the block, or null when the wire has no pool (the default).
     */
    default AtomicBuffer allocateShared(final int length)
    {
        return null;
    }

    /**
     * Give a block from {@link #allocateShared} back. Control path, thread-safe.
     *
     * @param buffer the block as allocated.
     * @return true when released; false when the wire has no pool or the buffer is not one of its blocks.
     */
    default boolean freeShared(final DirectBuffer buffer)
    {
        return false;
    }

    /**
     * Where a peer's range {@code [address, address + length)} (an address in the peer's process) is mapped here,
     * when it lies in the peer's shared pool and the peer is live. Called under the node's lock only: the answer
     * stays valid until the lock is released.
     *
     * @param peer    a key from {@link #resolve}.
     * @param address start in the peer's address space.
     * @param length  bytes, at least 1.
     * @return the local address, or 0 when the range cannot be read directly (the default).
     */
    default long directAddress(final long peer, final long address, final long length)
    {
        return 0;
    }
}
