package io.jfabric.spi;

/**
 * Receives the events a {@link DomainTransport} reports to the runtime: a peer that died and errors of the
 * transport itself. The transport queues them as it detects them (in its {@code offer} or {@code poll}, or in a
 * liveness scan) and hands them over in {@link DomainTransport#pollEvents}; the runtime acts on them there.
 * <p>
 * Threading: called on the domain agent thread only, from {@link DomainTransport#pollEvents}.
 */
public interface TransportEventHandler
{
    /**
     * A peer domain died (or was closed, or replaced by a new incarnation): nothing it owes this domain will come.
     * The runtime fails every operation that waits for an answer from any endpoint of that peer domain (every
     * key {@code k} with {@code transport.peerDomain(k) == transport.peerDomain(peerKey)}) with {@code errno},
     * and drops answers from that domain that arrive for them later.
     *
     * @param peerKey a key of any endpoint of the peer domain.
     * @param errno   the positive errno the waiting operations fail with ({@code EIO} for a dead peer).
     */
    void onPeerDown(long peerKey, int errno);

    /**
     * The transport itself failed in a way the runtime should know of (for example its own inbound ring was
     * damaged). Operations are failed through {@link #onPeerDown} and {@link DomainTransport#status()}; this
     * reports the cause. Not on the data path: {@code detail} may be a new string.
     *
     * @param errno  a positive errno.
     * @param detail a human-readable description.
     */
    void onTransportError(int errno, String detail);
}
