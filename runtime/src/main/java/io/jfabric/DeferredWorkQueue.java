package io.jfabric;

import io.jfabric.agent.TriggerTable;

/**
 * A domain's deferred work queue ({@code fi_control} with {@code FI_QUEUE_WORK}, {@code FI_CANCEL_WORK},
 * {@code FI_FLUSH_WORK}; fi_trigger(3)), on top of the domain's {@link TriggerTable}:
 * <ul>
 *   <li>a data item (send, tagged send, write, read, atomic, fetch or compare atomic) is posted at once on its
 *   endpoint with the msg form of its type and {@code FI_TRIGGER} under a trigger context of its own, so it gets
 *   every check and reservation of a post now and is held by the agent until its threshold; its completion reports
 *   the message's context. Receives ({@code FI_OP_RECV}, {@code FI_OP_TRECV}) answer {@code -ENOSYS};</li>
 *   <li>a counter item ({@code FI_OP_CNTR_SET}, {@code FI_OP_CNTR_ADD}) goes to the agent as a control command and
 *   is held there the same way; when it fires the agent sets or adds to the counter, then adds 1 to the
 *   completion counter;</li>
 *   <li>{@code FI_CANCEL_WORK} drops one held item (a data item with an {@code ECANCELED} error completion, as
 *   {@code fi_cancel}); {@code -ENOENT} when it is no longer held (issued, cancelled, never queued).
 *   {@code FI_FLUSH_WORK} drops every held item of the domain.</li>
 * </ul>
 * Threading: control path, any thread (one item must not be queued from two threads at once).
 */
final class DeferredWorkQueue
{
    /** How long cancel and flush wait for posts still in the send ring to be held. */
    private static final long SETTLE_NS = 5_000_000_000L;

    private DeferredWorkQueue()
    {
    }

    static int control(final Domain domain, final int command, final DeferredWork work)
    {
        switch (command)
        {
            case Domain.QUEUE_WORK:
                return queue(domain, work);
            case Domain.CANCEL_WORK:
                if (null == work || 0 == work.handle)
                {
                    return Errno.EINVAL.negated();
                }
                final int cancelled = settle(domain, TriggerTable.ANY_ENDPOINT, work.handle);
                if (0 == cancelled)
                {
                    work.handle = 0;
                }
                return cancelled;
            case Domain.FLUSH_WORK:
                return settle(domain, TriggerTable.ALL_WORK, 0);
            default:
                return Errno.ENOSYS.negated();
        }
    }

    private static int settle(final Domain domain, final int endpoint, final long handle)
    {
        final long deadline = System.nanoTime() + SETTLE_NS;
        int idle = 0;
        while (true)
        {
            final int status = domain.cancel(endpoint, handle);
            if (Errno.EAGAIN.negated() != status || System.nanoTime() - deadline >= 0)
            {
                return status;
            }
            if (0 == domain.progress())
            {
                idle = CompletionQueue.pause(idle);
            }
        }
    }

    private static int queue(final Domain domain, final DeferredWork work)
    {
        if (null == work)
        {
            return Errno.EINVAL.negated();
        }
        final Counter trigger = work.triggeringCounter;
        final Counter done = work.completionCounter;
        if (null == trigger || trigger.domain() != domain || work.threshold < 0 ||
            (null != done && done.domain() != domain))
        {
            return Errno.EINVAL.negated();
        }
        switch (work.opType)
        {
            case DeferredWork.OP_CNTR_SET:
            case DeferredWork.OP_CNTR_ADD:
                return queueCounter(domain, work);
            case DeferredWork.OP_SEND:
            case DeferredWork.OP_TSEND:
            case DeferredWork.OP_READ:
            case DeferredWork.OP_WRITE:
            case DeferredWork.OP_ATOMIC:
            case DeferredWork.OP_FETCH_ATOMIC:
            case DeferredWork.OP_COMPARE_ATOMIC:
                return queueOperation(domain, work);
            case DeferredWork.OP_RECV:
            case DeferredWork.OP_TRECV:
                return Errno.ENOSYS.negated();
            default:
                return Errno.EINVAL.negated();
        }
    }

    private static int queueCounter(final Domain domain, final DeferredWork work)
    {
        final Counter target = work.counter;
        if (null == target || target.domain() != domain)
        {
            return Errno.EINVAL.negated();
        }
        final TriggerTable table = domain.triggers();
        final int index = table.openContext(work.triggeringCounter.cell(), work.threshold,
            DeferredWork.OP_CNTR_SET == work.opType ? TriggerTable.WORK_CNTR_SET : TriggerTable.WORK_CNTR_ADD, 0,
            target.cell(), work.value, null == work.completionCounter ? null : work.completionCounter.cell());
        if (index < 0)
        {
            return Errno.EAGAIN.negated();
        }
        if (!table.reserve(index))
        {
            table.closeContext(index);
            return Errno.EAGAIN.negated();
        }
        work.handle = table.handle(index);
        domain.triggerWork(work.handle);
        return 0;
    }

    private static int queueOperation(final Domain domain, final DeferredWork work)
    {
        final Endpoint ep = work.endpoint;
        final Message msg = work.message;
        if (null == ep || ep.domain() != domain || null == msg)
        {
            return Errno.EINVAL.negated();
        }
        final long kind = DeferredWork.OP_SEND == work.opType || DeferredWork.OP_TSEND == work.opType ? Flags.SEND :
            DeferredWork.OP_READ == work.opType || DeferredWork.OP_FETCH_ATOMIC == work.opType ||
            DeferredWork.OP_COMPARE_ATOMIC == work.opType ? Flags.READ : Flags.WRITE;
        if (null != work.completionCounter && work.completionCounter != ep.bindings().transmitCounter(kind))
        {
            // Only the counter the endpoint bound for this kind learns of the operation's completion.
            return Errno.ENOSYS.negated();
        }
        final TriggerTable table = domain.triggers();
        final long context = msg.context;
        final int index = table.openContext(work.triggeringCounter.cell(), work.threshold, TriggerTable.WORK_OP,
            context, null, 0, null);
        if (index < 0)
        {
            return Errno.EAGAIN.negated();
        }
        final long handle = table.handle(index);
        final long flags = work.flags | Flags.TRIGGER;
        msg.context = handle;
        final int result;
        try
        {
            result = post(work, ep, msg, flags);
        }
        finally
        {
            msg.context = context;
        }
        if (0 != result)
        {
            table.closeContext(index);
            return result;
        }
        work.handle = handle;
        return 0;
    }

    private static int post(final DeferredWork work, final Endpoint ep, final Message msg, final long flags)
    {
        switch (work.opType)
        {
            case DeferredWork.OP_SEND:
                return ep.sendmsg(msg, flags);
            case DeferredWork.OP_TSEND:
                return ep.tsendmsg(msg, flags);
            case DeferredWork.OP_READ:
                return ep.readmsg(msg, flags);
            case DeferredWork.OP_WRITE:
                return ep.writemsg(msg, flags);
            case DeferredWork.OP_ATOMIC:
                return ep.atomicmsg(msg, work.datatype, work.atomicOp, flags);
            case DeferredWork.OP_FETCH_ATOMIC:
                return ep.fetchAtomicmsg(msg, work.result, work.resultOffset, work.datatype, work.atomicOp, flags);
            default:
                return ep.compareAtomicmsg(msg, work.compare, work.compareOffset, work.result, work.resultOffset,
                    work.datatype, work.atomicOp, flags);
        }
    }
}
