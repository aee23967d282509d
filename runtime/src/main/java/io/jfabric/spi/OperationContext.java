package io.jfabric.spi;

import io.jfabric.Errno;

/**
 * What the runtime gives an {@link OperationBackend}: the domain's completion writer, its receive matching, its
 * memory registry and its atomic executor. Every method is for the domain agent's thread only (the back-end's
 * {@code submit} and {@code doWork}); none allocates.
 * <p>
 * Initiator side: each operation the back-end accepted ends with exactly one {@link #complete} or {@link #fail}
 * (both write the completion the application asked for: its CQ entry unless {@code FI_SELECTIVE_COMPLETION}
 * suppresses it, errors always, the endpoint's counter, the pins released); for an operation whose endpoint was
 * closed since it was submitted nothing is written. Target side: {@link #deliver} hands an
 * arriving message to the runtime's matching (posted receives, unexpected store, multi-recv, {@code FI_SOURCE}),
 * {@link #verifyRemote} checks an RMA or atomic against the registered memory, {@link #remoteWriteDone} and
 * {@link #remoteReadDone} publish the target's events ({@code FI_RMA_EVENT} counters, remote CQ data), and
 * {@link #atomic} executes an atomic with the domain's atomic table.
 * <p>
 * Threading: the domain agent's thread only.
 */
public interface OperationContext
{
    /** {@link #deliver}: the message was matched (copied and completed) or stored as unexpected. */
    int DELIVERED = 1;
    /**
     * {@link #deliver}, {@link #complete}, {@link #fail}: no room now (a full completion
     * queue); nothing was done, try again on a later duty cycle.
     */
    int BUSY = 0;

    /**
     * The operation succeeded: a fetch or compare atomic's results and a read's data are already in its buffers.
     *
     * @param operation the id from {@link OperationCommand#operation()}.
     * @return {@link #DELIVERED} once written, {@link #BUSY} when the CQ is full (call again later), or
     * {@code -ENOENT} for an id that names no pending operation.
     */
    int complete(int operation);

    /**
     * The operation failed with {@code errno}: an error completion (also for operations posted without
     * {@code FI_COMPLETION}) and the counter's error count.
     *
     * @param operation the id.
     * @param errno     a positive errno.
     * @return {@link #DELIVERED}, {@link #BUSY} when the CQ's error queue is full, or {@code -ENOENT}.
     */
    int fail(int operation, int errno);

    /**
     * The application's progress calls on the domain so far, when the back-end asked for them
     * ({@link OperationBackend#countsApplicationProgress()}; else 0): with {@code FI_PROGRESS_AUTO} the duty cycle
     * runs on the agent's thread and a CQ, counter or EQ read or {@code Domain.progress()} does not enter it, so a
     * back-end that holds some traffic until the application polls (gni's eager messages without
     * {@code GNI_EAGER_AUTO_PROGRESS}) compares this with the value of its previous duty cycle. It only grows; one
     * opaque read. With {@code FI_PROGRESS_MANUAL} such a call runs the duty cycle itself (only one that finds another
     * thread running it is counted): a back-end of a MANUAL domain has no need of the count.
     *
     * @return the count.
     */
    long applicationProgress();

    /**
     * The operation failed with {@code errno} and the provider's own error code {@code provErrno}: as
     * {@link #fail(int, int)}, with {@code provErrno} in the error entry's {@code prov_errno} (fi_cq(3); e.g. gni's
     * {@code -FI_ECANCELED} for a transaction error, GNI.md §1.10). A context that keeps no provider errno writes 0.
     *
     * @param operation the id.
     * @param errno     a positive errno.
     * @param provErrno the provider's errno, any sign (written as given).
     * @return {@link #DELIVERED}, {@link #BUSY} when the CQ's error queue is full, or {@code -ENOENT}.
     */
    default int fail(final int operation, final int errno, final int provErrno)
    {
        return fail(operation, errno);
    }

    /**
     * A message arrived for endpoint {@code endpoint} of this domain: match it against the posted receives (or store
     * it as unexpected) and, when matched, copy it and complete the receive, all as the runtime's own protocol
     * does. The payload is consumed before this returns.
     *
     * @param endpoint  the destination endpoint's index.
     * @param sourceKey the sender's key (this domain's {@link DomainTransport#resolve} of its address; mapped to
     *                  {@code fi_addr} through the endpoint's AV for {@code FI_SOURCE} and directed receives).
     * @param tagged    a tagged message.
     * @param tag       its tag.
     * @param data      its remote CQ data.
     * @param hasData   whether the sender attached remote CQ data.
     * @param address   raw address of the payload.
     * @param length    payload bytes.
     * @return {@link #DELIVERED}; {@link #BUSY} (the receive CQ is full); {@code -EAGAIN} when no receive matches
     * and the unexpected store has no room (retry later or refuse the sender); {@code -ECONNREFUSED} when the
     * endpoint is not open.
     */
    int deliver(
        int endpoint,
        long sourceKey,
        boolean tagged,
        long tag,
        long data,
        boolean hasData,
        long address,
        long length);

    /**
     * {@link #arrive} with {@code store == false}: no posted receive matches the arrival; nothing was kept (the
     * back-end delivers the message later, for example whole through {@link #deliver}).
     */
    int NOT_MATCHED = 2;

    /**
     * A rendezvous message announced without its payload (the back-end pulls it, for example with a remote GET):
     * matched against the posted receives exactly as {@link #deliver} matches a message (the same order rules,
     * tagged and untagged, multi-recv, {@code FI_SOURCE}, selective receives). When a receive matches, the runtime
     * calls {@link OperationBackend#pull} before this returns, with the destination (the receive's buffer at its
     * offset or its iov, cut to the bytes that fit); the back-end moves the bytes there and ends the pull with
     * {@link #arrivalDone}. Until then the receive is in flight: a multi-recv buffer cannot be cancelled
     * ({@code -EAGAIN}) and keeps its pin. Optional: a back-end that never calls it delivers whole messages only.
     *
     * @param endpoint  the destination endpoint's index.
     * @param sourceKey the sender's key (as for {@link #deliver}).
     * @param tagged    a tagged message.
     * @param tag       its tag.
     * @param data      its remote CQ data.
     * @param hasData   whether the sender attached remote CQ data.
     * @param length    the message's length.
     * @param arrival   the back-end's id of the arrival, echoed in {@link RendezvousPull#arrival()}.
     * @param store     whether an arrival that matches nothing may be stored as unexpected without its payload
     *                  (within the endpoint's unexpected-message bounds): a later receive or {@code FI_CLAIM} that
     *                  matches it calls {@link OperationBackend#pull} then; {@code FI_DISCARD} and the endpoint's
     *                  close call {@link OperationBackend#discard}; a peek answers from the announcement alone.
     * @return {@link #DELIVERED} (matched: {@link OperationBackend#pull} was called; or stored, with {@code store}),
     * {@link #NOT_MATCHED} (no receive matches and {@code store} is false; nothing kept), {@link #BUSY} (the receive
     * CQ, the endpoint's slots or the runtime's arrival table are full: try again later), {@code -EAGAIN} (with
     * {@code store}: no receive matches and the unexpected store is full), {@code -ECONNREFUSED} when the endpoint
     * is not open.
     */
    default int arrive(
        final int endpoint,
        final long sourceKey,
        final boolean tagged,
        final long tag,
        final long data,
        final boolean hasData,
        final long length,
        final long arrival,
        final boolean store)
    {
        return NOT_MATCHED;
    }

    /**
     * The pull of a matched rendezvous arrival ({@link OperationBackend#pull}) is over: with {@code errno} 0 the
     * bytes are in the destination and the receive completes (with {@code FI_ETRUNC} and the truncated length when
     * the message was larger than the receive); otherwise the receive completes in error with {@code errno} (len 0).
     * A multi-recv buffer's pull ends here (its cancel and release no longer wait for it).
     *
     * @param handle {@link RendezvousPull#handle()}.
     * @param errno  0, or a positive errno.
     * @return {@link #DELIVERED}; {@code -ECONNREFUSED} when the receiving endpoint closed meanwhile (nothing
     * written: the sender should be told so); {@code -ENOENT} for a handle that names no pull.
     */
    default int arrivalDone(final int handle, final int errno)
    {
        return Errno.ENOENT.negated();
    }

    /**
     * Whether endpoint {@code endpoint} of this domain is open and enabled (a request for a closed endpoint is
     * answered with {@code ECONNREFUSED}, as the runtime's own protocol does).
     *
     * @param endpoint the endpoint's index.
     * @return true when it is.
     */
    boolean endpointOpen(int endpoint);

    /**
     * Check a remote access to this domain's registered memory and map it to a raw address. Target memory must not
     * be touched unless this returns a non-negative value.
     *
     * @param key     the remote key.
     * @param address the remote address (virtual or offset, per the domain's MR mode).
     * @param length  bytes accessed.
     * @param access  {@code Flags.REMOTE_WRITE}, {@code Flags.REMOTE_READ} or both.
     * @return the raw address, {@code -EINVAL} for an unknown key, {@code -EACCES} for missing rights or a range
     * outside the region.
     */
    long verifyRemote(long key, long address, long length, long access);

    /**
     * Reserve room in endpoint {@code endpoint}'s receive CQ for the {@code FI_REMOTE_WRITE} entry of a write with
     * remote CQ data, before any byte of it moves (as a posted receive reserves its completion: what the application
     * did not ask for may never take the room a receive's completion needs). Give it back with
     * {@link #releaseRemoteData} if the write then fails its checks.
     *
     * @param endpoint the target endpoint's index.
     * @return {@link #DELIVERED} (reserved, or the endpoint has no receive CQ), {@code -EAGAIN} when the CQ is full
     * (the runtime's own protocol then refuses the write with {@code EAGAIN}, memory untouched), or
     * {@code -ECONNREFUSED} for an endpoint that is not open.
     */
    int reserveRemoteData(int endpoint);

    /**
     * Give back a reservation of {@link #reserveRemoteData} whose write failed.
     *
     * @param endpoint the target endpoint's index.
     */
    void releaseRemoteData(int endpoint);

    /**
     * A peer's RMA write (or atomic) into endpoint {@code endpoint}'s memory is done: counts the endpoint's remote
     * write counter and, with remote CQ data, writes the receive CQ's {@code FI_REMOTE_WRITE} entry into the room
     * {@link #reserveRemoteData} reserved.
     *
     * @param endpoint the target endpoint's index.
     * @param length   bytes written.
     * @param hasData  whether the writer attached remote CQ data (then reserved before).
     * @param data     the data.
     * @return {@link #DELIVERED}, or {@code -ECONNREFUSED} for an endpoint that is not open.
     */
    int remoteWriteDone(int endpoint, long length, boolean hasData, long data);

    /**
     * A peer's RMA write with remote CQ data into endpoint {@code endpoint}'s memory is done, and the provider's rule
     * says it raises no counter event there (gni: the target endpoint lacks {@code FI_RMA_EVENT}): writes the receive
     * CQ's {@code FI_REMOTE_WRITE} entry into the room {@link #reserveRemoteData} reserved, and counts nothing.
     *
     * @param endpoint the target endpoint's index.
     * @param length   bytes written.
     * @param data     the remote CQ data.
     * @return {@link #DELIVERED}, or {@code -ECONNREFUSED} for an endpoint that is not open.
     */
    int remoteDataDone(int endpoint, long length, long data);

    /**
     * A peer's RMA read (or fetching atomic read) of endpoint {@code endpoint}'s memory is done: counts the remote
     * read counter.
     *
     * @param endpoint the target endpoint's index.
     * @return {@link #DELIVERED} or {@code -ECONNREFUSED}.
     */
    int remoteReadDone(int endpoint);

    /**
     * Execute an atomic on memory already checked by {@link #verifyRemote}, with this domain's atomic table.
     *
     * @param kind     {@link OperationCommand#ATOMIC_BASE}, {@code ATOMIC_FETCH} or {@code ATOMIC_COMPARE}.
     * @param op       the op's libfabric value.
     * @param datatype the datatype's libfabric value.
     * @param target   raw address of the first target element.
     * @param operand  raw address of the operands (0 for {@code FI_ATOMIC_READ}).
     * @param compare  raw address of the compare values (compare kind only).
     * @param result   raw address where the old values go (fetch and compare kinds).
     * @param count    elements.
     * @return 0, or {@code -EOPNOTSUPP}, {@code -EMSGSIZE}, {@code -EINVAL} (nothing touched).
     */
    int atomic(int kind, int op, int datatype, long target, long operand, long compare, long result, int count);
}
