package io.jfabric.spi;

import io.jfabric.Errno;

/**
 * The operation-level back-end of a domain: a provider with its own wire protocol (mailboxes, rendezvous by remote
 * GET, NIC RMA and atomics) that takes the domain's decoded initiator commands instead of carrying the runtime's
 * generic frame protocol. A {@link DomainTransport} offers one through {@link DomainTransport#operationBackend()};
 * the transport still names peers ({@code resolve}, {@code address}, {@code localKey}, {@code endpointIndex}) and
 * gets the endpoint and {@code open_ops} hooks, but its {@code offer} and {@code poll} are not used for operations.
 * <p>
 * What the runtime keeps: argument checks, pins and the command rings; receive posting and the matching engine
 * (arrivals come in through {@link OperationContext#deliver}); completion rings, counters,
 * {@code FI_SELECTIVE_COMPLETION}, error entries and the operation's context (through
 * {@link OperationContext#complete} and {@link OperationContext#fail}); memory registration and its checks
 * ({@link OperationContext#verifyRemote}); the atomic table ({@link OperationContext#atomic}). What the back-end
 * owns: moving bytes to and from peers, its own flow control and ordering, and calling back when an operation is
 * done.
 * <p>
 * Threading: every method is called on the domain agent's thread (one duty cycle per domain, the
 * {@code AgentRunner} thread or the manual-progress caller), never concurrently; {@link #open} is called once on
 * the thread opening the domain, before the first duty cycle.
 */
public interface OperationBackend
{
    /** {@link #submit} took the operation: it completes later through the context. */
    int ACCEPTED = 1;
    /**
     * {@link #submit} cannot take the operation now (no descriptor, no credit): the command stays at the head of the
     * send ring and is offered again on a later duty cycle (nothing behind it in that ring overtakes it).
     */
    int BUSY = 0;

    /**
     * Bind the back-end to its domain's runtime services (once, before the first duty cycle).
     *
     * @param context the domain's completion writer, receive matching, registry and atomic executor.
     */
    void open(OperationContext context);

    /**
     * One initiator command, decoded: a message or tagged send (send, sendv, sendmsg, inject, senddata, injectdata),
     * an RMA write or read, or an atomic (base, fetch, compare). The view is valid only during this call: an inline
     * payload ({@link OperationCommand#INLINE}) must be copied before returning; buffers named by address stay
     * valid (pinned) until the operation is completed or failed.
     *
     * @param command the decoded command, with the operation id to complete it with.
     * @return {@link #ACCEPTED}, {@link #BUSY}, or a negative errno that fails the operation at once (an error
     * completion with that errno).
     */
    int submit(OperationCommand command);

    /**
     * Progress: called once per duty cycle, after the domain's command rings were read. Deliver arrivals, execute
     * target operations, complete operations whose answers came.
     *
     * @return the amount of work done (0 when idle, for the idle strategy).
     */
    int doWork();

    /**
     * A rendezvous arrival announced with {@link OperationContext#arrive} matched a receive: pull the message into
     * {@code destination} (copy what the view says before returning) and end with
     * {@link OperationContext#arrivalDone} once the bytes are there or the pull failed. Called on the agent's thread,
     * from within {@code arrive}. A back-end that never calls {@code arrive} is never asked; the default refuses,
     * and the runtime then completes the receive with that error at once.
     *
     * @param destination the matched receive's buffer segments and the arrival's ids.
     * @return 0 when the back-end took the pull, or a negative errno (the receive fails with it; the back-end
     * answers its sender itself).
     */
    default int pull(final RendezvousPull destination)
    {
        return Errno.ENOSYS.negated();
    }

    /**
     * A rendezvous arrival stored as unexpected ({@link OperationContext#arrive} with {@code store}) will not be
     * pulled: it was discarded ({@code FI_DISCARD}, errno 0: the sender's operation completes successfully) or its
     * endpoint closed ({@code ECONNREFUSED}: the sender's operation fails with it). Called on the agent's thread.
     * Default: nothing (a back-end that never stores arrivals is never told).
     *
     * @param arrival the back-end's id of the arrival.
     * @param errno   0, or the positive errno the sender's operation ends with.
     */
    default void discard(final long arrival, final int errno)
    {
    }

    /**
     * Endpoint {@code endpoint} of this domain is being closed: called on the agent's thread when the runtime
     * withdraws it, before the closing thread releases the pins of its buffers (so before
     * {@link DomainTransport#closeEndpoint}). The back-end stops every access peers can still make to those buffers
     * (gni revokes the NIC registrations of its rendezvous sources, so that a receiver's GET of them fails); the
     * endpoint's operations it still holds end without completions. Default: nothing.
     *
     * @param endpoint the endpoint's index.
     */
    default void endpointClosing(final int endpoint)
    {
    }

    /**
     * Whether the back-end reads {@link OperationContext#applicationProgress()}: asked once, when the domain opens.
     * Only then does the runtime count the application's progress calls (with {@code FI_PROGRESS_AUTO}: CQ,
     * counter and EQ reads, {@code Domain.progress()}); other domains count nothing. Default: false.
     *
     * @return true to have them counted.
     */
    default boolean countsApplicationProgress()
    {
        return false;
    }

    /**
     * A memory region of this domain was registered ({@code fi_mr_reg}): the back-end may register it with its
     * hardware so that peers reach it with nothing but the key (gni's scalable keys name a vMDH slot of the target's
     * NIC). Called on the agent's thread after the domain's registry accepted the region and before the
     * registration returns; a region of several segments ({@code fi_mr_regv}) is reported by its first segment.
     *
     * @param key     the region's key.
     * @param address raw address of its first byte.
     * @param length  bytes.
     * @param access  its access flags.
     * @return 0, or a negative errno that fails the registration (the registry drops the region).
     */
    default int regionRegistered(final long key, final long address, final long length, final long access)
    {
        return 0;
    }

    /**
     * A memory region of the domain closed ({@code fi_close} of the MR): called on the agent's thread once the
     * runtime's registry no longer knows {@code key}, before {@code fi_close} returns; called for every region the
     * registry closed, whether or not {@link #regionRegistered} took it. A back-end that registered the region with
     * its hardware removes that registration, so that later remote accesses with the key fail; one whose target work
     * uses registrations of its own (a NIC's) for accesses still in flight revokes those too, so that nothing is
     * written into or read from the region after the close, and fails those accesses. Called once per region: the
     * back-end reconciles both. Default: nothing.
     *
     * @param key the region's key.
     */
    default void regionClosed(final long key)
    {
    }

    /**
     * The runtime waits for every operation of endpoint {@code endpoint} to complete before it takes its next
     * command (an {@code FI_FENCE} command at the head of the ring): a back-end that holds operations back for that
     * endpoint ({@code FI_MORE}: gni chains RMA posted with it until a call without it) sends them now, or the fence
     * would wait for ever. Called on the agent's thread on every duty cycle the fenced command waits; cheap when
     * nothing is held. Default: nothing.
     *
     * @param endpoint the endpoint's index.
     */
    default void flush(final int endpoint)
    {
    }
}
