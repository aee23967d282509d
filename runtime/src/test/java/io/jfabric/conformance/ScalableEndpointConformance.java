package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
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
import io.jfabric.Progress;
import io.jfabric.ScalableEndpoint;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Scalable endpoints as fabtests' {@code scalable_ep} exercises them (fi_endpoint(3), fi_av(3)): transmit and
 * receive contexts with their own CQs, {@code FI_NAMED_RX_CTX} routing through an AV with {@code rx_ctx_bits}
 * ({@code fi_rx_addr}) so that a message reaches exactly the context it names, data verified; the scalable
 * endpoint's CQ as the contexts' default; the limits getInfo reports; bad input (index out of range, a context
 * opened twice, a context without an AV, one-way contexts, closing with open contexts).
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(60)
public abstract class ScalableEndpointConformance extends Conformance
{
    private static final int CONTEXTS = 2;
    private static final int RX_CTX_BITS = 2;

    /**
     * @param factory the provider under test.
     */
    protected ScalableEndpointConformance(final PairFactory factory)
    {
        super(factory);
    }

    private Info sepInfo(final Progress progress, final int contexts)
    {
        return info(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.NAMED_RX_CTX)
            .epAttr(EpAttr.builder().txCtxCnt(contexts).rxCtxCnt(contexts).build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build());
    }

    /** One side: a scalable endpoint with every context open, each with its own CQ, all enabled. */
    private static final class Side implements AutoCloseable
    {
        final ScalableEndpoint sep;
        final AddressVector av;
        final Endpoint[] tx;
        final Endpoint[] rx;
        final CompletionQueue[] txCq;
        final CompletionQueue[] rxCq;

        Side(final Domain domain, final Info info, final int rxCtxBits)
        {
            av = domain.addressVector(AvAttr.builder().type(AvType.TABLE).count(4).rxCtxBits(rxCtxBits).build());
            assertEquals(rxCtxBits, av.rxCtxBits());
            sep = domain.scalableEndpoint(info).bind(av, 0);
            tx = new Endpoint[sep.txContextCount()];
            rx = new Endpoint[sep.rxContextCount()];
            txCq = new CompletionQueue[tx.length];
            rxCq = new CompletionQueue[rx.length];
            for (int i = 0; i < tx.length; i++)
            {
                txCq[i] = domain.completionQueue(64, CqFormat.TAGGED);
                tx[i] = sep.txContext(i, null).bind(txCq[i], Flags.TRANSMIT).enable();
            }
            for (int i = 0; i < rx.length; i++)
            {
                rxCq[i] = domain.completionQueue(64, CqFormat.TAGGED);
                rx[i] = sep.rxContext(i, null).bind(rxCq[i], Flags.RECV).enable();
            }
            sep.enable();
        }

        @Override
        public void close()
        {
            for (final Endpoint e : tx)
            {
                e.close();
            }
            for (final Endpoint e : rx)
            {
                e.close();
            }
            sep.close();
            for (final CompletionQueue cq : txCq)
            {
                cq.close();
            }
            for (final CompletionQueue cq : rxCq)
            {
                cq.close();
            }
            av.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldDeliverEachMessageToExactlyTheNamedReceiveContext(final Progress progress)
    {
        final Info info = sepInfo(progress, CONTEXTS);
        assertEquals(CONTEXTS, info.epAttr().txCtxCnt());
        assertTrue((info.caps() & Flags.NAMED_RX_CTX) != 0, "FI_NAMED_RX_CTX granted");
        try (Pair p = pair(progress);
            Side a = new Side(p.domainA, info, RX_CTX_BITS);
            Side b = new Side(p.domainB, info, 0))
        {
            final long bFromA = a.av.insert(b.sep.name());
            assertTrue(bFromA >= 0);
            final UnsafeBuffer[] rxBuffers = {direct(256), direct(256)};
            for (int round = 0; round < 20; round++)
            {
                // Each transmit context sends to the other receive context: the message lands only there.
                for (int t = 0; t < CONTEXTS; t++)
                {
                    final int target = (t + round) % CONTEXTS;
                    final int other = 1 - target;
                    assertEquals(0, b.rx[target].recv(rxBuffers[target], 0, 256, AddressVector.ADDR_UNSPEC,
                        1000 + round));
                    final long dest = AddressVector.rxAddr(bFromA, target, RX_CTX_BITS);
                    final int seed = round * 7 + t;
                    assertEquals(0, a.tx[t].send(pattern(100 + round, seed), 0, 100 + round, dest, 500 + t));
                    final CompletionEntry got = one(b.rxCq[target]);
                    assertEquals(1000 + round, got.context());
                    assertEquals(100 + round, got.len());
                    assertEquals(Flags.RECV | Flags.MSG, got.flags());
                    assertPattern(rxBuffers[target], 0, 100 + round, seed);
                    assertEquals(500 + t, one(a.txCq[t]).context(), "the transmit context's own CQ");
                    assertEmpty(b.rxCq[other]);
                    assertEmpty(a.txCq[1 - t]);
                }
            }
            // Tagged messages are routed the same way.
            assertEquals(0, b.rx[1].trecv(rxBuffers[1], 0, 256, AddressVector.ADDR_UNSPEC, 42, 0, 77));
            assertEquals(0, a.tx[0].tsend(pattern(64, 9), 0, 64, AddressVector.rxAddr(bFromA, 1, RX_CTX_BITS), 42,
                78));
            final CompletionEntry tagged = one(b.rxCq[1]);
            assertEquals(77, tagged.context());
            assertEquals(42, tagged.tag());
            assertPattern(rxBuffers[1], 0, 64, 9);
            assertEquals(78, one(a.txCq[0]).context());
            assertEmpty(b.rxCq[0]);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldDeliverUnnamedMessagesToExactlyOneReceiveContext(final Progress progress)
    {
        final Info info = sepInfo(progress, CONTEXTS);
        try (Pair p = pair(progress);
            Side a = new Side(p.domainA, info, 0);
            Side b = new Side(p.domainB, info, 0))
        {
            final long bFromA = a.av.insert(b.sep.name());
            final UnsafeBuffer[] rxBuffers = {direct(128), direct(128)};
            for (int round = 0; round < 10; round++)
            {
                for (int r = 0; r < CONTEXTS; r++)
                {
                    assertEquals(0, b.rx[r].recv(rxBuffers[r], 0, 128, AddressVector.ADDR_UNSPEC, 10 * round + r));
                }
                assertEquals(0, a.tx[round % CONTEXTS].send(pattern(90, round), 0, 90, bFromA, round));
                assertEquals(round, one(a.txCq[round % CONTEXTS]).context());
                // "Any context may receive": exactly one does, with the data.
                final CompletionEntry entry = new CompletionEntry();
                int receiver = -1;
                final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
                while (receiver < 0)
                {
                    for (int r = 0; r < CONTEXTS && receiver < 0; r++)
                    {
                        if (1 == b.rxCq[r].read(entry))
                        {
                            receiver = r;
                        }
                    }
                    if (System.nanoTime() - deadline > 0)
                    {
                        fail("no receive context got the message");
                    }
                    progressAll();
                }
                assertEquals(10 * round + receiver, entry.context());
                assertPattern(rxBuffers[receiver], 0, 90, round);
                assertEmpty(b.rxCq[1 - receiver]);
                // The other context's receive is still posted: cancel it to keep the rounds independent.
                assertEquals(0, b.rx[1 - receiver].cancel(10 * round + (1 - receiver)));
                final io.jfabric.CompletionErrorEntry canceled = Pair.error(b.rxCq[1 - receiver]);
                assertEquals(Errno.ECANCELED.value(), canceled.err());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldUseTheScalableEndpointsQueuesForContextsWithoutTheirOwn(final Progress progress)
    {
        final Info info = sepInfo(progress, 1);
        try (Pair p = pair(progress))
        {
            final AddressVector avA = p.domainA.addressVector(AvType.TABLE, 2);
            final AddressVector avB = p.domainB.addressVector(AvType.TABLE, 2);
            final CompletionQueue cqA = p.domainA.completionQueue(16, CqFormat.TAGGED);
            final CompletionQueue cqB = p.domainB.completionQueue(16, CqFormat.TAGGED);
            final ScalableEndpoint sepA = p.domainA.scalableEndpoint(info).bind(avA, 0)
                .bind(cqA, Flags.TRANSMIT | Flags.RECV);
            final ScalableEndpoint sepB = p.domainB.scalableEndpoint(info).bind(avB, 0).bind(cqB, Flags.RECV);
            final Endpoint txA = sepA.txContext(0, null).enable();
            final Endpoint rxB = sepB.rxContext(0, null).enable();
            sepA.enable();
            sepB.enable();
            final long bFromA = avA.insert(sepB.name());
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, rxB.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 3));
            assertEquals(0, txA.send(pattern(40, 4), 0, 40, bFromA, 4));
            assertEquals(3, one(cqB).context());
            assertPattern(rx, 0, 40, 4);
            assertEquals(4, one(cqA).context());
            // Bound objects stay bound while the contexts and the scalable endpoint are open.
            assertEquals(Errno.EBUSY, assertThrows(FabricException.class, cqA::close).errno());
            assertEquals(Errno.EBUSY, assertThrows(FabricException.class, avA::close).errno());
            txA.close();
            rxB.close();
            sepA.close();
            sepB.close();
            cqA.close();
            cqB.close();
            avA.close();
            avB.close();
        }
    }

    @Test
    void shouldRefuseBadContextsAndKeepContextsOneWay()
    {
        final Info info = sepInfo(Progress.AUTO, CONTEXTS);
        try (Pair p = pair(Progress.AUTO))
        {
            final ScalableEndpoint sep = p.domainA.scalableEndpoint(info);
            assertEquals(CONTEXTS, sep.txContextCount());
            assertEquals(CONTEXTS, sep.rxContextCount());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> sep.txContext(-1, null)).errno());
            assertEquals(Errno.EINVAL,
                assertThrows(FabricException.class, () -> sep.txContext(CONTEXTS, null)).errno());
            assertEquals(Errno.EINVAL,
                assertThrows(FabricException.class, () -> sep.rxContext(CONTEXTS, null)).errno());
            final Endpoint tx = sep.txContext(0, null);
            final Endpoint rx = sep.rxContext(0, null);
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> sep.txContext(0, null)).errno());
            // A context without an address vector (none bound to the scalable endpoint) cannot be enabled.
            assertEquals(Errno.ENOAV, assertThrows(FabricException.class, tx::enable).errno());
            assertEquals(Errno.ENOAV, assertThrows(FabricException.class, sep::enable).errno());
            // Posts before enable.
            final UnsafeBuffer buf = direct(16);
            assertEquals(Errno.EOPBADSTATE.negated(), tx.send(buf, 0, 16, 0, 1));
            assertEquals(Errno.EOPBADSTATE.negated(), tx.txSizeLeft());
            final AddressVector av = p.domainA.addressVector(AvType.TABLE, 2);
            sep.bind(av, 0).enable();
            assertEquals(Errno.EOPBADSTATE, assertThrows(FabricException.class, () -> sep.bind(av, 0)).errno());
            final CompletionQueue cq = p.domainA.completionQueue(8, CqFormat.TAGGED);
            tx.bind(cq, Flags.TRANSMIT).enable();
            rx.bind(cq, Flags.RECV).enable();
            // One-way contexts: a transmit context has no receive calls, a receive context no transmit calls.
            assertEquals(Errno.ENOSYS.negated(), tx.recv(buf, 0, 16, AddressVector.ADDR_UNSPEC, 2));
            assertEquals(Errno.ENOSYS.negated(), tx.trecv(buf, 0, 16, AddressVector.ADDR_UNSPEC, 0, 0, 2));
            assertEquals(Errno.ENOSYS.negated(), rx.send(buf, 0, 16, 0, 3));
            assertEquals(Errno.ENOSYS.negated(), rx.tsend(buf, 0, 16, 0, 0, 3));
            assertEquals(Errno.ENOSYS.negated(), rx.txSizeLeft());
            assertEquals(Errno.ENOSYS.negated(), tx.rxSizeLeft());
            // fi_endpoint(3): the contexts close before their scalable endpoint.
            assertEquals(Errno.EBUSY, assertThrows(FabricException.class, sep::close).errno());
            tx.close();
            assertEquals(Errno.EBUSY, assertThrows(FabricException.class, sep::close).errno());
            // A closed context's index opens again, and works.
            final Endpoint again = sep.txContext(0, null).bind(cq, Flags.TRANSMIT).enable();
            assertEquals(cq.size(), again.txSizeLeft());
            again.close();
            rx.close();
            sep.close();
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> sep.rxContext(1, null)).errno());
            cq.close();
            av.close();
        }
    }

    @Test
    void shouldRefuseSharedContextCountsForAScalableEndpoint()
    {
        // Shared contexts are offered (SharedContextConformance); a scalable endpoint's contexts are its own.
        final Info info = sepInfo(Progress.AUTO, 1);
        try (Pair p = pair(Progress.AUTO))
        {
            final Info sharedTx = info.toBuilder()
                .epAttr(info.epAttr().toBuilder().txCtxCnt(EpAttr.SHARED_CONTEXT).build()).build();
            assertEquals(Errno.EINVAL,
                assertThrows(FabricException.class, () -> p.domainA.scalableEndpoint(sharedTx)).errno());
        }
    }

    @Test
    protected void shouldReportAndEnforceTheContextLimits()
    {
        final Info info = sepInfo(Progress.AUTO, 0);
        final long maxTx = info.domainAttr().maxEpTxCtx();
        final long maxRx = info.domainAttr().maxEpRxCtx();
        assertTrue(maxTx >= CONTEXTS && maxRx >= CONTEXTS, "max_ep_tx_ctx " + maxTx + ", max_ep_rx_ctx " + maxRx);
        assertTrue(info.epAttr().txCtxCnt() <= maxTx && info.epAttr().rxCtxCnt() <= maxRx);
        // getInfo grants up to the maximum and no more.
        final int most = (int) Math.min(maxTx, maxRx);
        assertEquals(most, sepInfo(Progress.AUTO, most).epAttr().txCtxCnt());
        assertEquals(most, sepInfo(Progress.AUTO, most).epAttr().rxCtxCnt());
        final FabricException above = assertThrows(FabricException.class, () -> Fabric.getInfo(Info.builder()
            .epAttr(EpAttr.builder().txCtxCnt(maxTx + 1).build())
            .fabricAttr(FabricAttr.builder().provName(provider()).build()).build()));
        assertEquals(Errno.ENODATA, above.errno());
        try (Pair p = pair(Progress.AUTO))
        {
            final Info tooMany = info.toBuilder().epAttr(info.epAttr().toBuilder().rxCtxCnt(maxRx + 1).build())
                .build();
            assertEquals(Errno.EINVAL,
                assertThrows(FabricException.class, () -> p.domainA.scalableEndpoint(tooMany)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> p.domainA.addressVector(
                AvAttr.builder().rxCtxBits(AvAttr.MAX_RX_CTX_BITS + 1).build())).errno());
            // The maximum opens, each context works.
            final List<Endpoint> opened = new ArrayList<>();
            final Info all = info.toBuilder().epAttr(info.epAttr().toBuilder().txCtxCnt(maxTx).rxCtxCnt(maxRx)
                .build()).build();
            final ScalableEndpoint sep = p.domainB.scalableEndpoint(all);
            assertEquals(maxTx, sep.txContextCount());
            assertEquals(maxRx, sep.rxContextCount());
            for (int i = 0; i < maxTx; i++)
            {
                opened.add(sep.txContext(i, null));
            }
            for (int i = 0; i < maxRx; i++)
            {
                opened.add(sep.rxContext(i, null));
            }
            for (final Endpoint e : opened)
            {
                e.close();
            }
            sep.close();
        }
    }
}
