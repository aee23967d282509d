package io.jfabric.conformance;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Counter;
import io.jfabric.DeferredWork;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.TriggeredContext;
import io.jfabric.agent.TriggerTable;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static io.jfabric.conformance.Pair.progressAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Triggered operations and deferred work (fi_trigger(3)), modelled on fabtests' {@code rdm_rma_trigger} and
 * {@code rdm_deferred_wq}: operations held until a counter reaches a threshold, issued exactly there and in
 * threshold order (ties in posting order), cancelled, dropped with their endpoint; deferred data and counter work;
 * bad input refused with an errno.
 * <p>
 * "Not issued yet" is proved without timing: after the counter moved below the threshold, two plain writes to the
 * same target are posted one after the other and each completion awaited; an operation issued wrongly would have
 * left before the second (same peer, requests in order), so the target shows it by then.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(60)
public abstract class TriggerConformance extends Conformance
{
    private static final int KEY = 91;

    /**
     * @param factory the provider under test.
     */
    protected TriggerConformance(final PairFactory factory)
    {
        super(factory);
    }

    @Test
    void shouldAdvertiseTriggerAndTakeItInHints()
    {
        final Info info = info(Info.builder().caps(Flags.MSG | Flags.RMA | Flags.TRIGGER).build());
        assertEquals(Flags.TRIGGER, info.caps() & Flags.TRIGGER);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldIssueATriggeredWriteExactlyAtItsThreshold(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(4096);
            final Counter trigger = p.domainA.counter();
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096, Flags.REMOTE_WRITE, KEY);
                TriggeredContext ctx = p.domainA.triggeredContext(trigger, 3))
            {
                final Message msg = new Message().buffer(pattern(512, 7), 0, 512).addr(p.addrBFromA)
                    .rma(0, KEY).context(ctx.handle());
                assertEquals(0, p.a.writemsg(msg, Flags.TRIGGER | Flags.COMPLETION));
                assertEquals(1, ctx.pending());
                barrier(p, target);
                assertEquals(0, target.getLong(0), "issued before its counter moved");
                trigger.add(2);
                barrier(p, target);
                assertEquals(0, target.getLong(0), "issued below its threshold");
                trigger.add(1);
                final CompletionEntry done = one(p.cqA);
                assertEquals(ctx.handle(), done.context(), "the completion reports the triggered context");
                assertEquals(Flags.RMA | Flags.WRITE, done.flags());
                assertPattern(target, 0, 512, 7);
                assertEquals(0, ctx.pending());
            }
            trigger.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldIssueInThresholdOrderAndTiesInPostingOrder(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final Counter trigger = p.domainA.counter();
            final int[] thresholds = {3, 1, 2, 2, 5};
            final List<TriggeredContext> contexts = new ArrayList<>();
            for (final int t : thresholds)
            {
                contexts.add(p.domainA.triggeredContext(trigger, t));
            }
            final UnsafeBuffer[] payloads = new UnsafeBuffer[thresholds.length];
            for (int i = 0; i < thresholds.length; i++)
            {
                payloads[i] = direct(8);
                payloads[i].putLong(0, i);
                assertEquals(0, p.a.tsendmsg(new Message().buffer(payloads[i], 0, 8).addr(p.addrBFromA).tag(i)
                    .context(contexts.get(i).handle()), Flags.TRIGGER | Flags.COMPLETION));
            }
            final UnsafeBuffer[] landing = new UnsafeBuffer[thresholds.length];
            for (int i = 0; i < thresholds.length; i++)
            {
                landing[i] = direct(8);
                assertEquals(0, p.b.trecv(landing[i], 0, 8, 0, 0, -1L, 100 + i));
            }
            // Up to 4 at once: the ops at 1, 2, 2, 3 go, in that order; the one at 5 stays.
            trigger.set(4);
            final int[] expected = {1, 2, 3, 0};
            for (int k = 0; k < expected.length; k++)
            {
                final CompletionEntry rx = receive(p);
                assertEquals(100 + k, rx.context(), "receives complete in arrival order");
                assertEquals(expected[k], landing[k].getLong(0), "arrival " + k);
            }
            for (int k = 0; k < 4; k++)
            {
                one(p.cqA);
            }
            assertEquals(1, contexts.get(4).pending());
            trigger.add(1);
            assertEquals(104, receive(p).context());
            assertEquals(4, landing[4].getLong(0));
            assertEquals(contexts.get(4).handle(), one(p.cqA).context());
            for (final TriggeredContext c : contexts)
            {
                c.close();
            }
            trigger.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldChainOnTheSendCounterAsRdmRmaTriggerDoes(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(1024);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 1024, Flags.REMOTE_WRITE | Flags.REMOTE_READ,
                KEY); TriggeredContext ctx = p.domainA.triggeredContext(p.sendCntrA, 1))
            {
                // The write waits for the send to complete (fabtests: the second op fires on the first's counter).
                assertEquals(0, p.a.writemsg(new Message().buffer(pattern(256, 3), 0, 256).addr(p.addrBFromA)
                    .rma(128, KEY).context(ctx.handle()), Flags.TRIGGER));
                barrier(p, target);
                assertEquals(0, target.getLong(128));
                final UnsafeBuffer rx = direct(16);
                assertEquals(0, p.b.recv(rx, 0, 16, 0, 9));
                assertEquals(0, p.a.send(pattern(16, 1), 0, 16, p.addrBFromA, 8));
                assertEquals(9, receive(p).context());
                final List<Long> contexts = new ArrayList<>();
                contexts.add(one(p.cqA).context());
                contexts.add(one(p.cqA).context());
                assertTrue(contexts.contains(8L) && contexts.contains(ctx.handle()), contexts.toString());
                assertEquals(1, p.sendCntrA.read());
                assertPattern(target, 128, 256, 3);
                // A triggered read on the same counter at 1: already there, issued at once; it reads the write.
                final UnsafeBuffer back = direct(256);
                assertEquals(0, p.a.readmsg(new Message().buffer(back, 0, 256).addr(p.addrBFromA).rma(128, KEY)
                    .context(ctx.handle()), Flags.TRIGGER));
                assertEquals(ctx.handle(), one(p.cqA).context());
                assertPattern(back, 0, 256, 3);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldTriggerAFetchAtomicWithTheOldValue(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(8);
            target.putLong(0, 40);
            final Counter trigger = p.domainA.counter();
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 8, Flags.REMOTE_WRITE | Flags.REMOTE_READ,
                KEY); TriggeredContext ctx = p.domainA.triggeredContext(trigger, 1))
            {
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 2);
                final UnsafeBuffer result = direct(8);
                assertEquals(0, p.a.fetchAtomicmsg(new Message().buffer(operand, 0, 8).addr(p.addrBFromA)
                    .rma(0, KEY).context(ctx.handle()), result, 0, AtomicDatatype.INT64, AtomicOp.SUM,
                    Flags.TRIGGER | Flags.COMPLETION));
                Pair.assertEmpty(p.cqA);
                assertEquals(40, target.getLong(0));
                trigger.add(1);
                final CompletionEntry done = one(p.cqA);
                assertEquals(ctx.handle(), done.context());
                assertEquals(Flags.ATOMIC | Flags.READ, done.flags());
                assertEquals(40, result.getLong(0));
                assertEquals(42, target.getLong(0));
            }
            trigger.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCancelAHeldOperationWithAnEcanceledCompletion(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(1024);
            final Counter trigger = p.domainA.counter();
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 1024, Flags.REMOTE_WRITE, KEY);
                TriggeredContext ctx = p.domainA.triggeredContext(trigger, 1))
            {
                assertEquals(0, p.a.writemsg(new Message().buffer(pattern(64, 5), 0, 64).addr(p.addrBFromA)
                    .rma(0, KEY).context(ctx.handle()), Flags.TRIGGER | Flags.COMPLETION));
                assertEquals(0, cancel(p.a, ctx.handle()));
                final CompletionErrorEntry err = error(p.cqA);
                assertEquals(Errno.ECANCELED.value(), err.err());
                assertEquals(ctx.handle(), err.context());
                assertEquals(Flags.RMA | Flags.WRITE, err.flags());
                assertEquals(0, ctx.pending());
                trigger.add(1);
                barrier(p, target);
                assertEquals(0, target.getLong(0), "a cancelled operation is never issued");
            }
            trigger.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldDropHeldOperationsWithTheirEndpointAndFreeTheCounter(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final Counter trigger = p.domainA.counter();
            final TriggeredContext ctx = p.domainA.triggeredContext(trigger, 10);
            final Endpoint extra = p.domainA.endpoint(p.infoA).bind(p.avA, 0).bind(p.cqA, Flags.TRANSMIT).enable();
            final UnsafeBuffer payload = pattern(8, 2);
            for (int i = 0; i < 3; i++)
            {
                assertEquals(0, extra.sendmsg(new Message().buffer(payload, 0, 8).addr(p.addrBFromA)
                    .context(ctx.handle()), Flags.TRIGGER));
            }
            // The counter and the context are still needed (fi_trigger(3): the operations reference them).
            settle(ctx, 3);
            assertEquals(Errno.EBUSY, assertThrows(FabricException.class, trigger::close).errno());
            assertEquals(Errno.EBUSY, assertThrows(FabricException.class, ctx::close).errno());
            assertEquals(Errno.EBUSY, assertThrows(FabricException.class, () -> ctx.set(trigger, 1)).errno());
            extra.close();
            // A triggered post still in the command ring when the close overtakes it is dropped when the agent
            // reaches it: bounded wait, not an immediate read.
            awaitPending(ctx, 0);
            trigger.add(10);
            Pair.assertEmpty(p.cqA);
            Pair.assertEmpty(p.cqB);
            ctx.close();
            trigger.close();
        }
    }

    @Test
    void shouldRefuseBadTriggerInput()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer payload = direct(8);
            final Message msg = new Message().buffer(payload, 0, 8).addr(p.addrBFromA).context(42);
            assertEquals(Errno.EINVAL.negated(), p.a.sendmsg(msg, Flags.TRIGGER), "no trigger context");
            assertEquals(Errno.EINVAL.negated(), p.a.sendmsg(msg.context(TriggerTable.HANDLE_TAG | 7),
                Flags.TRIGGER), "a handle of no open context");
            assertEquals(Errno.ENOSYS.negated(), p.b.trecvmsg(new Message().buffer(payload, 0, 8), Flags.TRIGGER));
            assertEquals(Errno.ENOSYS.negated(), p.b.recvmsg(new Message().buffer(payload, 0, 8), Flags.TRIGGER));
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainA.triggeredContext(null, 1)).errno(), "null threshold counter");
            final Counter counter = p.domainA.counter();
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainA.triggeredContext(counter, -1)).errno());
            final Counter other = p.domainB.counter();
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.domainA.triggeredContext(other, 1)).errno());
            final TriggeredContext ctx = p.domainA.triggeredContext(counter, 1);
            ctx.close();
            assertEquals(Errno.EINVAL.negated(), p.a.sendmsg(msg.context(ctx.handle()), Flags.TRIGGER),
                "a closed context");
            Pair.assertEmpty(p.cqA);
            other.close();
            counter.close();
        }
    }

    @Test
    void shouldHoldUpToTheTableAndIssueEveryOneOfThem()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final int n = TriggerTable.HELD;
            final UnsafeBuffer target = direct(n * 8);
            final Counter trigger = p.domainA.counter();
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, n * 8, Flags.REMOTE_WRITE, KEY);
                TriggeredContext ctx = p.domainA.triggeredContext(trigger, 1))
            {
                final UnsafeBuffer source = direct(n * 8);
                for (int i = 0; i < n; i++)
                {
                    source.putLong(i * 8, 1000 + i);
                    assertEquals(0, p.a.writemsg(new Message().buffer(source, i * 8, 8).addr(p.addrBFromA)
                        .rma(i * 8, KEY).context(ctx.handle()), Flags.TRIGGER | Flags.COMPLETION), "op " + i);
                }
                assertEquals(Errno.EAGAIN.negated(), p.a.writemsg(new Message().buffer(source, 0, 8)
                    .addr(p.addrBFromA).rma(0, KEY).context(ctx.handle()), Flags.TRIGGER | Flags.COMPLETION),
                    "the held store is full");
                trigger.add(1);
                for (int i = 0; i < n; i++)
                {
                    assertEquals(ctx.handle(), one(p.cqA).context());
                }
                for (int i = 0; i < n; i++)
                {
                    assertEquals(1000 + i, target.getLong(i * 8));
                }
                assertEquals(0, ctx.pending());
            }
            trigger.close();
        }
    }

    // ------------------------------------------------------------------------------------------ deferred work

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldRunDeferredWriteAndCounterWorkAsRdmDeferredWqDoes(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(1024);
            final Counter trigger = p.domainA.counter();
            final Counter changed = p.domainA.counter();
            final Counter done = p.domainA.counter();
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 1024, Flags.REMOTE_WRITE, KEY))
            {
                final DeferredWork write = new DeferredWork().trigger(trigger, 2).operation(DeferredWork.OP_WRITE,
                    p.a, new Message().buffer(pattern(300, 9), 0, 300).addr(p.addrBFromA).rma(0, KEY).context(77),
                    Flags.COMPLETION);
                final DeferredWork add = new DeferredWork().trigger(trigger, 1)
                    .counterOperation(DeferredWork.OP_CNTR_ADD, changed, 5).completion(done);
                final DeferredWork set = new DeferredWork().trigger(trigger, 2)
                    .counterOperation(DeferredWork.OP_CNTR_SET, changed, 100).completion(done);
                assertEquals(0, p.domainA.control(Domain.QUEUE_WORK, write));
                assertEquals(0, p.domainA.control(Domain.QUEUE_WORK, add));
                assertEquals(0, p.domainA.control(Domain.QUEUE_WORK, set));
                trigger.add(1);
                awaitCount(done, 1);
                assertEquals(5, changed.read());
                barrier(p, target);
                assertEquals(0, target.getLong(0), "the write waits for 2");
                trigger.add(1);
                final CompletionEntry w = one(p.cqA);
                assertEquals(77, w.context(), "deferred work completes with its message's context");
                assertPattern(target, 0, 300, 9);
                awaitCount(done, 2);
                assertEquals(100, changed.read());
                assertEquals(Errno.ENOENT.negated(), p.domainA.control(Domain.CANCEL_WORK, write),
                    "an item already issued is not held");
            }
            trigger.close();
            changed.close();
            done.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCancelAndFlushDeferredWork(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = direct(64);
            final Counter trigger = p.domainA.counter();
            final Counter changed = p.domainA.counter();
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_WRITE, KEY))
            {
                final DeferredWork write = new DeferredWork().trigger(trigger, 1).operation(DeferredWork.OP_WRITE,
                    p.a, new Message().buffer(pattern(8, 4), 0, 8).addr(p.addrBFromA).rma(0, KEY).context(5),
                    Flags.COMPLETION);
                final DeferredWork add = new DeferredWork().trigger(trigger, 1)
                    .counterOperation(DeferredWork.OP_CNTR_ADD, changed, 1);
                assertEquals(0, p.domainA.control(Domain.QUEUE_WORK, write));
                assertEquals(0, p.domainA.control(Domain.QUEUE_WORK, add));
                assertEquals(0, p.domainA.control(Domain.CANCEL_WORK, write));
                final CompletionErrorEntry err = error(p.cqA);
                assertEquals(Errno.ECANCELED.value(), err.err());
                assertEquals(5, err.context());
                assertEquals(Errno.EINVAL.negated(), p.domainA.control(Domain.CANCEL_WORK, write),
                    "a cancelled item is no longer queued");

                final DeferredWork second = new DeferredWork().trigger(trigger, 1).operation(DeferredWork.OP_SEND,
                    p.a, new Message().buffer(pattern(8, 4), 0, 8).addr(p.addrBFromA).context(6), Flags.COMPLETION);
                assertEquals(0, p.domainA.control(Domain.QUEUE_WORK, second));
                assertEquals(0, p.domainA.control(Domain.FLUSH_WORK, null));
                assertEquals(6, error(p.cqA).context());
                trigger.add(1);
                barrier(p, target);
                assertEquals(0, target.getLong(0));
                assertEquals(0, changed.read(), "flushed counter work never runs");
                Pair.assertEmpty(p.cqB);
            }
            trigger.close();
            changed.close();
        }
    }

    @Test
    void shouldRefuseBadDeferredWork()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final Counter trigger = p.domainA.counter();
            final Counter other = p.domainB.counter();
            final Message msg = new Message().buffer(direct(8), 0, 8).addr(p.addrBFromA).context(1);
            assertEquals(Errno.EINVAL.negated(), p.domainA.control(Domain.QUEUE_WORK, null));
            assertEquals(Errno.EINVAL.negated(), p.domainA.control(Domain.QUEUE_WORK,
                new DeferredWork().operation(DeferredWork.OP_SEND, p.a, msg, 0)), "no triggering counter");
            assertEquals(Errno.EINVAL.negated(), p.domainA.control(Domain.QUEUE_WORK,
                new DeferredWork().trigger(trigger, 1).operation(99, p.a, msg, 0)), "unknown work type");
            assertEquals(Errno.EINVAL.negated(), p.domainA.control(Domain.QUEUE_WORK,
                new DeferredWork().trigger(trigger, 1)), "no work type");
            assertEquals(Errno.EINVAL.negated(), p.domainA.control(Domain.QUEUE_WORK,
                new DeferredWork().trigger(other, 1).operation(DeferredWork.OP_SEND, p.a, msg, 0)));
            assertEquals(Errno.EINVAL.negated(), p.domainA.control(Domain.QUEUE_WORK,
                new DeferredWork().trigger(trigger, 1).operation(DeferredWork.OP_SEND, p.b, msg, 0)),
                "endpoint of another domain");
            assertEquals(Errno.ENOSYS.negated(), p.domainA.control(Domain.QUEUE_WORK,
                new DeferredWork().trigger(trigger, 1).operation(DeferredWork.OP_RECV, p.a, msg, 0)));
            assertEquals(Errno.ENOSYS.negated(), p.domainA.control(Domain.QUEUE_WORK,
                new DeferredWork().trigger(trigger, 1).operation(DeferredWork.OP_SEND, p.a, msg, 0)
                    .completion(trigger)), "a completion counter the endpoint does not count sends in");
            assertEquals(Errno.EINVAL.negated(), p.domainA.control(Domain.QUEUE_WORK,
                new DeferredWork().trigger(trigger, 1).counterOperation(DeferredWork.OP_CNTR_SET, other, 1)));
            assertEquals(Errno.ENOSYS.negated(), p.domainA.control(99, new DeferredWork()), "unknown command");
            assertEquals(Errno.EINVAL.negated(), p.domainA.control(Domain.CANCEL_WORK, new DeferredWork()),
                "never queued");
            Pair.assertEmpty(p.cqA);
            trigger.close();
            other.close();
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Two plain writes to byte 4000 of the target (or its end), each completed: what was issued before has landed. */
    private static void barrier(final Pair p, final UnsafeBuffer target)
    {
        final UnsafeBuffer one = direct(1);
        final long at = target.capacity() - 1;
        for (int i = 0; i < 2; i++)
        {
            final byte before = target.getByte((int) at);
            assertEquals(0, p.a.write(one, 0, 1, p.addrBFromA, at, KEY, 0xBA44_1E00L + i));
            assertEquals(0xBA44_1E00L + i, one(p.cqA).context());
            assertEquals(before, target.getByte((int) at));
        }
    }

    private static CompletionEntry receive(final Pair p)
    {
        return one(p.cqB);
    }

    private static int cancel(final Endpoint ep, final long context)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (true)
        {
            final int status = ep.cancel(context);
            if (Errno.EAGAIN.negated() != status || System.nanoTime() - deadline > 0)
            {
                return status;
            }
            progressAll();
        }
    }

    /** Wait until the agent holds what was posted (the posts are counted at once; holding needs a duty cycle). */
    private static void settle(final TriggeredContext ctx, final int expected)
    {
        assertEquals(expected, ctx.pending());
        for (int i = 0; i < 100; i++)
        {
            progressAll();
        }
    }

    private static void awaitPending(final TriggeredContext ctx, final int value)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (ctx.pending() != value)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("closing the endpoint drops what it held: " + ctx.pending() + " still pending, expected " + value);
            }
            progressAll();
        }
    }

    private static void awaitCount(final Counter counter, final long value)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (counter.read() < value)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("counter stayed at " + counter.read() + ", expected " + value);
            }
            progressAll();
        }
        assertEquals(value, counter.read());
    }
}
