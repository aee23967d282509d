package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.SharedTxContext;
import io.jfabric.TxAttr;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static io.jfabric.conformance.Pair.progressAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Shared transmit and receive contexts as fabtests' {@code shared_ctx} exercises them (fi_endpoint(3):
 * {@code fi_stx_context}, {@code fi_srx_context}, {@code FI_SHARED_CONTEXT}): several endpoints bound to one shared
 * receive context, messages sent to each of them received through the context's posted receives, data verified at
 * eager and rendezvous sizes, posted before or after the message arrived, directed receives on the context,
 * {@code FI_SOURCE} of the sender; endpoints bound to one shared transmit context share its queue
 * ({@code fi_tx_size_left}, {@code -EAGAIN} when full); bad input (bind after enable, different receive CQs,
 * closing a context with bound endpoints, one-way roles); what getInfo reports.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(60)
public abstract class SharedContextConformance extends Conformance
{
    private static final int EAGER = 100;
    private static final int RENDEZVOUS = 200_000;

    /**
     * @param factory the provider under test.
     */
    protected SharedContextConformance(final PairFactory factory)
    {
        super(factory);
    }

    private Info sharedInfo(final Progress progress)
    {
        return info(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.SOURCE | Flags.DIRECTED_RECV)
            .epAttr(EpAttr.builder().txCtxCnt(EpAttr.SHARED_CONTEXT).rxCtxCnt(EpAttr.SHARED_CONTEXT).build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build());
    }

    /** Receiving side in domain b: {@code n} endpoints bound to one srx, one receive CQ, own transmit CQs. */
    private static final class Sharers implements AutoCloseable
    {
        final Endpoint srx;
        final CompletionQueue rxCq;
        final Endpoint[] ep;
        final CompletionQueue[] txCq;
        final long[] fromA;

        Sharers(final Pair p, final int n)
        {
            srx = p.domainB.srxContext(p.infoB.rxAttr());
            rxCq = p.domainB.completionQueue(64, CqFormat.TAGGED);
            ep = new Endpoint[n];
            txCq = new CompletionQueue[n];
            fromA = new long[n];
            for (int i = 0; i < n; i++)
            {
                txCq[i] = p.domainB.completionQueue(64, CqFormat.TAGGED);
                ep[i] = p.domainB.endpoint(p.infoB).bind(p.avB, 0).bind(rxCq, Flags.RECV)
                    .bind(txCq[i], Flags.TRANSMIT).bind(srx, 0).enable();
                fromA[i] = p.avA.insert(ep[i].name());
                assertTrue(fromA[i] >= 0);
            }
        }

        @Override
        public void close()
        {
            for (final Endpoint e : ep)
            {
                e.close();
            }
            srx.close();
            rxCq.close();
            for (final CompletionQueue cq : txCq)
            {
                cq.close();
            }
        }
    }

    /** Read one completion with its source address, driving progress. */
    private static long oneFrom(final CompletionQueue cq, final CompletionEntry entry)
    {
        final CompletionEntry[] entries = {entry};
        final long[] sources = new long[1];
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (true)
        {
            final int n = cq.readFrom(entries, sources, 1);
            if (1 == n)
            {
                return sources[0];
            }
            if (n != Errno.EAGAIN.negated())
            {
                fail("cq.readFrom returned " + n + " (" + Errno.strerror(n) + ")");
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("no completion before the deadline");
            }
            progressAll();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldReceiveMessagesToEveryBoundEndpointThroughTheSharedReceiveContext(final Progress progress)
    {
        final Info info = sharedInfo(progress);
        for (final int n : new int[]{2, 3})
        {
            try (Pair p = pair(info, 0, CqFormat.TAGGED, 1024);
                Sharers s = new Sharers(p, n))
            {
                for (final int size : new int[]{EAGER, RENDEZVOUS})
                {
                    for (int i = 0; i < n; i++)
                    {
                        final UnsafeBuffer rx = direct(size);
                        final int seed = size + 10 * n + i;
                        assertEquals(0, s.srx.recv(rx, 0, size, AddressVector.ADDR_UNSPEC, 100 + i));
                        assertEquals(0, p.a.send(pattern(size, seed), 0, size, s.fromA[i], 200 + i));
                        final CompletionEntry got = new CompletionEntry();
                        assertEquals(p.addrAFromB, oneFrom(s.rxCq, got), "FI_SOURCE: the sender");
                        assertEquals(100 + i, got.context());
                        assertEquals(size, got.len());
                        assertEquals(Flags.RECV | Flags.MSG, got.flags());
                        assertPattern(rx, 0, size, seed);
                        assertEquals(200 + i, one(p.cqA).context(), "the send completes (answers reach it)");
                    }
                    // Tagged, all in flight at once: each message reaches the receive of its tag.
                    final UnsafeBuffer[] rx = new UnsafeBuffer[n];
                    for (int i = 0; i < n; i++)
                    {
                        rx[i] = direct(size);
                        assertEquals(0, s.srx.trecv(rx[i], 0, size, AddressVector.ADDR_UNSPEC, 7 + i, 0, 300 + i));
                    }
                    for (int i = 0; i < n; i++)
                    {
                        assertEquals(0, p.a.tsend(pattern(size, 3 * i + 1), 0, size, s.fromA[i], 7 + i, 400 + i));
                    }
                    final boolean[] seen = new boolean[n];
                    for (int k = 0; k < n; k++)
                    {
                        final CompletionEntry got = one(s.rxCq);
                        final int i = (int) got.context() - 300;
                        assertTrue(i >= 0 && i < n && !seen[i], "context " + got.context());
                        seen[i] = true;
                        assertEquals(7 + i, got.tag());
                        assertEquals(size, got.len());
                        assertPattern(rx[i], 0, size, 3 * i + 1);
                    }
                    final boolean[] sent = new boolean[n];
                    for (int k = 0; k < n; k++)
                    {
                        final int i = (int) one(p.cqA).context() - 400;
                        assertTrue(i >= 0 && i < n && !sent[i]);
                        sent[i] = true;
                    }
                }
                for (final CompletionQueue cq : s.txCq)
                {
                    assertEmpty(cq);
                }
                assertEmpty(p.cqB);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldMatchUnexpectedMessagesWithReceivesPostedLaterOnTheSharedReceiveContext(
        final Progress progress)
    {
        try (Pair p = pair(sharedInfo(progress), 0, CqFormat.TAGGED, 1024);
            Sharers s = new Sharers(p, 3))
        {
            // Each endpoint gets an eager and a rendezvous message before any receive is posted.
            for (int i = 0; i < 3; i++)
            {
                assertEquals(0, p.a.tsend(pattern(EAGER, i), 0, EAGER, s.fromA[i], i, 10 + i));
                assertEquals(0, p.a.tsend(pattern(RENDEZVOUS, 50 + i), 0, RENDEZVOUS, s.fromA[i], 50 + i, 60 + i));
            }
            for (int k = 0; k < 3; k++)
            {
                assertTrue(one(p.cqA).context() < 20, "eager sends complete without a receive");
            }
            for (int i = 2; i >= 0; i--)
            {
                final UnsafeBuffer eager = direct(EAGER);
                assertEquals(0, s.srx.trecv(eager, 0, EAGER, AddressVector.ADDR_UNSPEC, i, 0, 1000 + i));
                final CompletionEntry e = one(s.rxCq);
                assertEquals(1000 + i, e.context());
                assertPattern(eager, 0, EAGER, i);
                final UnsafeBuffer large = direct(RENDEZVOUS);
                assertEquals(0, s.srx.trecv(large, 0, RENDEZVOUS, AddressVector.ADDR_UNSPEC, 50 + i, 0, 2000 + i));
                final CompletionEntry r = one(s.rxCq);
                assertEquals(2000 + i, r.context());
                assertEquals(RENDEZVOUS, r.len());
                assertPattern(large, 0, RENDEZVOUS, 50 + i);
                // The rendezvous send finishes once its data was pulled: the FIN came from the endpoint it addressed.
                assertEquals(60 + i, one(p.cqA).context());
            }
            assertEmpty(s.rxCq);
        }
    }

    /** Peek on the srx (with {@code flags}) until the message is there; ENOMSG answers are read and retried. */
    private static CompletionEntry peek(final Endpoint srx, final CompletionQueue cq, final Message msg,
        final long flags)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        final CompletionEntry e = new CompletionEntry();
        final CompletionErrorEntry err = new CompletionErrorEntry();
        while (true)
        {
            assertEquals(0, srx.trecvmsg(msg, flags));
            while (true)
            {
                final int n = cq.read(e);
                if (1 == n)
                {
                    return e;
                }
                if (n == Errno.EAVAIL.negated())
                {
                    assertEquals(1, cq.readErr(err));
                    assertEquals(Errno.ENOMSG, err.errno());
                    break;
                }
                assertTrue(System.nanoTime() < deadline, "no message to peek before the deadline");
                progressAll();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    protected void shouldPeekClaimAndDiscardOnTheSharedReceiveContext(final Progress progress)
    {
        try (Pair p = pair(sharedInfo(progress), 0, CqFormat.TAGGED, 1024);
            Sharers s = new Sharers(p, 2))
        {
            // A rendezvous message to endpoint 1, peeked and claimed through the srx: the pull's CTS and FIN go out
            // from endpoint 1, so the send completes.
            assertEquals(0, p.a.tsend(pattern(RENDEZVOUS, 4), 0, RENDEZVOUS, s.fromA[1], 8, 1));
            final Message msg = new Message().addr(AddressVector.ADDR_UNSPEC).tag(8).context(2);
            final CompletionEntry peeked = peek(s.srx, s.rxCq, msg, Flags.PEEK | Flags.CLAIM);
            assertEquals(2, peeked.context());
            assertEquals(RENDEZVOUS, peeked.len());
            assertEquals(8, peeked.tag());
            final UnsafeBuffer rx = direct(RENDEZVOUS);
            assertEquals(0, s.srx.trecvmsg(new Message().buffer(rx, 0, RENDEZVOUS).tag(8).context(2), Flags.CLAIM));
            final CompletionEntry claimed = one(s.rxCq);
            assertEquals(2, claimed.context());
            assertEquals(RENDEZVOUS, claimed.len());
            assertPattern(rx, 0, RENDEZVOUS, 4);
            assertEquals(1, one(p.cqA).context());
            // A rendezvous message to endpoint 0, discarded through the srx: its FIN finishes the send.
            assertEquals(0, p.a.tsend(pattern(RENDEZVOUS, 5), 0, RENDEZVOUS, s.fromA[0], 9, 3));
            final Message discard = new Message().addr(AddressVector.ADDR_UNSPEC).tag(9).context(4);
            assertEquals(4, peek(s.srx, s.rxCq, discard, Flags.PEEK | Flags.DISCARD).context());
            assertEquals(3, one(p.cqA).context());
            assertEquals(0, s.srx.trecvmsg(discard.context(5), Flags.PEEK));
            assertEquals(Errno.ENOMSG, Pair.error(s.rxCq).errno());
        }
    }

    @Test
    protected void shouldHonourDirectedReceivesOnTheSharedReceiveContext()
    {
        final Info info = sharedInfo(Progress.AUTO);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 1024);
            Sharers s = new Sharers(p, 2))
        {
            final CompletionQueue cq2 = p.domainA.completionQueue(64, CqFormat.TAGGED);
            final Endpoint a2 = p.domainA.endpoint(info).bind(p.avA, 0).bind(cq2, Flags.TRANSMIT | Flags.RECV)
                .enable();
            try
            {
                final long a2FromB = p.avB.insert(a2.name());
                assertTrue(a2FromB >= 0 && a2FromB != p.addrAFromB);
                final UnsafeBuffer only2 = direct(EAGER);
                assertEquals(0, s.srx.recv(only2, 0, EAGER, a2FromB, 1));
                // From a to endpoint 0: not for the directed receive, it waits as unexpected.
                assertEquals(0, p.a.send(pattern(EAGER, 5), 0, EAGER, s.fromA[0], 2));
                assertEquals(2, one(p.cqA).context());
                assertEmpty(s.rxCq);
                // From a2 to endpoint 1: it is.
                assertEquals(0, a2.send(pattern(EAGER, 6), 0, EAGER, s.fromA[1], 3));
                final CompletionEntry got = new CompletionEntry();
                assertEquals(a2FromB, oneFrom(s.rxCq, got));
                assertEquals(1, got.context());
                assertPattern(only2, 0, EAGER, 6);
                assertEquals(3, one(cq2).context());
                // A receive directed at a takes a's waiting message.
                final UnsafeBuffer fromA = direct(EAGER);
                assertEquals(0, s.srx.recv(fromA, 0, EAGER, p.addrAFromB, 4));
                assertEquals(p.addrAFromB, oneFrom(s.rxCq, got));
                assertEquals(4, got.context());
                assertPattern(fromA, 0, EAGER, 5);
            }
            finally
            {
                a2.close();
                cq2.close();
            }
        }
    }

    @Test
    protected void shouldShareTheTransmitQueueOfASharedTransmitContext()
    {
        final Info info = sharedInfo(Progress.AUTO);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 1024))
        {
            final SharedTxContext stx = p.domainA.stxContext(TxAttr.builder().size(4).build());
            assertEquals(4, stx.size());
            final CompletionQueue cq0 = p.domainA.completionQueue(64, CqFormat.TAGGED);
            final CompletionQueue cq1 = p.domainA.completionQueue(64, CqFormat.TAGGED);
            final Endpoint s0 = p.domainA.endpoint(info).bind(p.avA, 0).bind(cq0, Flags.TRANSMIT | Flags.RECV)
                .bind(stx, 0).enable();
            final Endpoint s1 = p.domainA.endpoint(info).bind(p.avA, 0).bind(cq1, Flags.TRANSMIT | Flags.RECV)
                .bind(stx, 0).enable();
            try
            {
                assertEquals(2, stx.boundEndpoints());
                assertEquals(4, s0.txSizeLeft());
                assertEquals(4, s1.txSizeLeft());
                // Rendezvous sends with no receive posted hold their queue entry until the receiver pulls.
                final UnsafeBuffer payload = pattern(RENDEZVOUS, 8);
                assertEquals(0, s1.send(payload, 0, RENDEZVOUS, p.addrBFromA, 10));
                assertEquals(0, s1.send(payload, 0, RENDEZVOUS, p.addrBFromA, 11));
                assertEquals(2, s0.txSizeLeft(), "s1's sends take entries of the queue s0 shares");
                assertEquals(0, s0.send(payload, 0, RENDEZVOUS, p.addrBFromA, 12));
                assertEquals(0, s0.send(payload, 0, RENDEZVOUS, p.addrBFromA, 13));
                assertEquals(0, s0.txSizeLeft());
                assertEquals(0, s1.txSizeLeft());
                assertEquals(Errno.EAGAIN.negated(), s1.send(payload, 0, RENDEZVOUS, p.addrBFromA, 14));
                assertEquals(Errno.EAGAIN.negated(), s0.send(payload, 0, RENDEZVOUS, p.addrBFromA, 15));
                // The receiver takes them: the entries come back.
                for (int k = 0; k < 4; k++)
                {
                    final UnsafeBuffer rx = direct(RENDEZVOUS);
                    assertEquals(0, p.b.recv(rx, 0, RENDEZVOUS, AddressVector.ADDR_UNSPEC, 100 + k));
                    assertTrue(one(p.cqB).context() >= 100);
                    assertPattern(rx, 0, RENDEZVOUS, 8);
                }
                final List<Long> done = new ArrayList<>();
                done.add(one(cq1).context());
                done.add(one(cq1).context());
                done.add(one(cq0).context());
                done.add(one(cq0).context());
                assertEquals(List.of(10L, 11L, 12L, 13L), done.stream().sorted().toList());
                final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
                while (s0.txSizeLeft() < 4)
                {
                    assertTrue(System.nanoTime() < deadline, "the entries come back");
                    progressAll();
                }
                assertEquals(4, s1.txSizeLeft());
                assertEquals(0, s1.send(payload, 0, EAGER, p.addrBFromA, 16));
                assertEquals(16, one(cq1).context());
                assertEquals(Errno.EBUSY, assertThrows(FabricException.class, stx::close).errno());
            }
            finally
            {
                s0.close();
                s1.close();
                stx.close();
                cq0.close();
                cq1.close();
            }
            assertEquals(0, stx.boundEndpoints());
        }
    }

    @Test
    protected void shouldRefuseBadUseOfSharedContexts()
    {
        final Info info = sharedInfo(Progress.AUTO);
        try (Pair p = pair(info, 0, CqFormat.TAGGED, 1024))
        {
            final Domain d = p.domainB;
            final Endpoint srx = d.srxContext(null);
            final SharedTxContext stx = d.stxContext(null);
            final CompletionQueue other = d.completionQueue(64, CqFormat.TAGGED);
            final CompletionQueue rxCq = d.completionQueue(64, CqFormat.TAGGED);
            final Endpoint e0 = d.endpoint(info).bind(p.avB, 0).bind(rxCq, Flags.RECV | Flags.TRANSMIT);
            final Endpoint e1 = d.endpoint(info).bind(p.avB, 0).bind(other, Flags.RECV | Flags.TRANSMIT);
            try
            {
                // Not a shared receive context; flags; the context's own role.
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> e0.bind(e1, 0)).errno());
                assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class, () -> e0.bind(srx, 1)).errno());
                assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class, () -> e0.bind(stx, 1)).errno());
                assertEquals(Errno.ENOSYS.negated(), srx.send(direct(8), 0, 8, p.addrAFromB, 1));
                assertEquals(Errno.ENOSYS.negated(), srx.txSizeLeft());
                assertEquals(Errno.EOPBADSTATE.negated(), srx.recv(direct(8), 0, 8, AddressVector.ADDR_UNSPEC, 1),
                    "no receive before a bound endpoint enabled the context");
                e0.bind(srx, 0).bind(stx, 0);
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> e0.bind(srx, 0)).errno());
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> e0.bind(stx, 0)).errno());
                e0.enable();
                assertTrue(srx.rxSizeLeft() > 0, "the context receives once a bound endpoint enabled it");
                // An endpoint bound to the context receives through it only.
                assertEquals(Errno.ENOSYS.negated(), e0.recv(direct(8), 0, 8, AddressVector.ADDR_UNSPEC, 2));
                assertEquals(Errno.ENOSYS.negated(), e0.rxSizeLeft());
                // Bind after enable.
                assertEquals(Errno.EOPBADSTATE, assertThrows(FabricException.class, () -> e0.bind(srx, 0)).errno());
                // Another receive CQ than the context's.
                e1.bind(srx, 0);
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class, e1::enable).errno());
                // Closing a context with bound endpoints.
                assertEquals(Errno.EBUSY, assertThrows(FabricException.class, srx::close).errno());
                assertEquals(Errno.EBUSY, assertThrows(FabricException.class, stx::close).errno());
                e1.close();
                assertEquals(Errno.EBUSY, assertThrows(FabricException.class, srx::close).errno());
                e0.close();
                srx.close();
                stx.close();
                final Endpoint e2 = d.endpoint(info);
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> e2.bind(srx, 0)).errno());
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> e2.bind(stx, 0)).errno());
                e2.close();
            }
            finally
            {
                e0.close();
                e1.close();
                srx.close();
                stx.close();
                other.close();
                rxCq.close();
            }
        }
    }

    @Test
    protected void shouldReportSharedContextsThroughGetInfo()
    {
        final Info info = sharedInfo(Progress.AUTO);
        assertEquals(1, info.domainAttr().maxEpStxCtx());
        assertEquals(1, info.domainAttr().maxEpSrxCtx());
        for (final boolean tx : new boolean[]{true, false})
        {
            final EpAttr shared = tx ? EpAttr.builder().txCtxCnt(EpAttr.SHARED_CONTEXT).build() :
                EpAttr.builder().rxCtxCnt(EpAttr.SHARED_CONTEXT).build();
            final List<Info> infos = Fabric.getInfo(Info.builder()
                .epAttr(shared).fabricAttr(FabricAttr.builder().provName(provider()).build()).build());
            assertFalse(infos.isEmpty());
            for (final Info i : infos)
            {
                assertEquals(EpAttr.SHARED_CONTEXT, tx ? i.epAttr().txCtxCnt() : i.epAttr().rxCtxCnt());
                assertTrue((tx ? i.domainAttr().maxEpStxCtx() : i.domainAttr().maxEpSrxCtx()) > 0);
            }
        }
    }
}
