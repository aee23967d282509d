package io.jfabric.spi;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The back-end of one open domain: moves frames (see {@code io.jfabric.agent.FrameDescriptor}) between this
 * domain's endpoints and their peers. A provider adds only this and its attributes; the runtime's domain agent
 * does matching, completions, counters and the protocol.
 * <p>
 * Threading: {@link #offer}, {@link #poll} and {@link #endpointIndex} are called by the domain agent only (one
 * thread at a time); the address methods and {@link #close()} are control-path calls, thread-safe.
 */
public interface DomainTransport extends AutoCloseable
{
    /**
     * The largest frame (header and payload) {@link #offer} accepts.
     *
     * @return bytes.
     */
    int maxFrameLength();

    /**
     * Messages longer than this go by rendezvous (the receiver pulls after matching); shorter ones are eager.
     *
     * @return bytes; 8 KiB by default.
     */
    default int eagerThreshold()
    {
        return 8192;
    }

    /**
     * The address bytes of local endpoint {@code endpointIndex} ({@code fi_getname}).
     *
     * @param endpointIndex the endpoint's index in the domain.
     * @return the address in the provider's format.
     */
    byte[] endpointAddress(int endpointIndex);

    /**
     * The peer key of local endpoint {@code endpointIndex}, as a peer sees it in frames.
     *
     * @param endpointIndex the endpoint's index in the domain.
     * @return a non-negative key.
     */
    long localKey(int endpointIndex);

    /**
     * Resolve an address (as produced by {@link #endpointAddress}) into a peer key.
     *
     * @param address the address bytes.
     * @return a non-negative peer key, or -1 when the address is malformed or not of this provider.
     */
    long resolve(byte[] address);

    /**
     * The address bytes of a peer key (the inverse of {@link #resolve}).
     *
     * @param peerKey a key from {@link #resolve}.
     * @return the address.
     */
    byte[] address(long peerKey);

    /**
     * The endpoint index within the peer's domain that a peer key names.
     *
     * @param peerKey a key from {@link #resolve}.
     * @return the index.
     */
    int endpointIndex(long peerKey);

    /**
     * Send one frame made of a header and a payload to the domain of {@code peerKey}.
     *
     * @param peerKey       the destination.
     * @param header        the frame header.
     * @param headerOffset  offset of the header.
     * @param headerLength  header bytes.
     * @param payload       the payload (may be null when {@code payloadLength} is 0).
     * @param payloadOffset offset of the payload.
     * @param payloadLength payload bytes.
     * @return 1 when sent, 0 on back-pressure (retry later), or a negative errno (EHOSTUNREACH-like failures
     * as {@code -ENOENT} for an unknown peer domain).
     */
    int offer(
        long peerKey,
        DirectBuffer header,
        int headerOffset,
        int headerLength,
        DirectBuffer payload,
        int payloadOffset,
        int payloadLength);

    /**
     * Allocate {@code length} bytes from this domain's shared-memory pool: memory a peer domain's agent can read
     * directly, so that a rendezvous send from it moves with one copy (see {@link #directAddress}). Control path,
     * thread-safe. Optional: the default has no pool.
     *
     * @param length bytes, at least 1.
     * @return a buffer over the allocated bytes, or null when this transport has no pool.
     * @throws io.jfabric.FabricException ENOMEM when the pool cannot hold {@code length} more bytes.
     */
    default AtomicBuffer allocateShared(final int length)
    {
        return null;
    }

    /**
     * Return a buffer from {@link #allocateShared} to the pool. Control path, thread-safe.
     *
     * @param buffer the buffer as allocated (same address and capacity).
     * @return true when released, false when this transport has no pool or the buffer is not one of its blocks.
     */
    default boolean freeShared(final DirectBuffer buffer)
    {
        return false;
    }

    /**
     * Can the agent read a peer's memory range {@code [address, address + length)} (an address in the peer's
     * process, as a rendezvous request names it) directly, and where is it mapped here? Asked right before the
     * agent copies, so an answer other than 0 promises the range stays readable for that copy (the peer is alive
     * and the mapping is not past its file's end). Called by the domain agent only.
     *
     * @param peerKey the peer that owns the range.
     * @param address the start in the peer's address space.
     * @param length  bytes, at least 1.
     * @return the local address of the range's first byte, or 0 when it is not directly readable (the default:
     * the agent pulls the data through frames).
     */
    default long directAddress(final long peerKey, final long address, final long length)
    {
        return 0;
    }

    /**
     * The epoch of the peer a key names: a value that changes whenever the peer behind the key dies or is replaced
     * by a new incarnation (shm: a restarted process under the same name keeps its peer keys). The agent's flow
     * control starts a peer's credit over when its epoch changes, so that a dead peer's unconsumed messages block
     * nobody and a restarted one begins with a fresh grant on both sides. Called by the domain agent only, on the
     * data path (keep it a field read). Optional: the default, 0, suits transports whose peers never restart
     * under the same key (inproc).
     *
     * @param peerKey a key from {@link #resolve}, or a source key from a frame.
     * @return the epoch.
     */
    default long peerEpoch(final long peerKey)
    {
        return 0;
    }

    /**
     * Whether this domain can still receive: 0 while it works, a negative errno once it cannot (for example its own
     * inbound ring was damaged). The agent then fails every posted receive, and every receive posted later, with
     * that errno instead of leaving them waiting. Called by the domain agent once per duty cycle: keep it a field
     * read.
     * @return 0, or a negative errno.
     */
    default int status()
    {
        return 0;
    }

    /**
     * Allocate this transport's own counters (see {@link TransportCounters}); called once by the runtime after the
     * domain opened, before its agent runs. Optional: the default registers none.
     *
     * @param counters where to allocate them; the runtime frees them when the domain closes.
     */
    default void registerCounters(final TransportCounters counters)
    {
    }

    /**
     * Deliver inbound frames to {@code handler}, at most {@code limit}.
     *
     * @param handler receives each frame; a false return keeps that frame for a later poll (back-pressure).
     * @param limit   most frames this call.
     * @return number of frames consumed.
     */
    int poll(FrameHandler handler, int limit);

    /**
     * Release the back-end; later offers to this domain fail.
     */
    @Override
    void close();
}
