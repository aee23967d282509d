package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.RxAttr;
import io.jfabric.ScalableEndpoint;
import io.jfabric.TxAttr;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code fi_tx_size_left} / {@code fi_rx_size_left} as fabtests' {@code size_left_test} checks them: before enable
 * {@code -EOPBADSTATE}; once enabled the queue depth ({@code tx_attr.size} / {@code rx_attr.size}, here equal to the
 * CQ sizes); one less per post; at 0 the next post answers {@code -EAGAIN} (a lower bound that is exact here); back
 * up as completions are read; the same on a scalable endpoint's transmit context.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(60)
public abstract class SizeLeftConformance extends Conformance
{
    private static final int DEPTH = 16;

    /**
     * @param factory the provider under test.
     */
    protected SizeLeftConformance(final PairFactory factory)
    {
        super(factory);
    }

    private Info depthInfo(final Progress progress, final int contexts)
    {
        return info(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED)
            .txAttr(TxAttr.builder().size(DEPTH).build())
            .rxAttr(RxAttr.builder().size(DEPTH).build())
            .epAttr(EpAttr.builder().txCtxCnt(contexts).rxCtxCnt(contexts).build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build());
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCountPostsDownAndCompletionsBackUp(final Progress progress)
    {
        final Info info = depthInfo(progress, 1);
        assertEquals(DEPTH, info.txAttr().size());
        try (Pair p = pair(progress))
        {
            final AddressVector avA = p.domainA.addressVector(AvType.TABLE, 2);
            final AddressVector avB = p.domainB.addressVector(AvType.TABLE, 2);
            final CompletionQueue txCq = p.domainA.completionQueue(DEPTH, CqFormat.TAGGED);
            final CompletionQueue rxCq = p.domainB.completionQueue(DEPTH, CqFormat.TAGGED);
            final Endpoint sender = p.domainA.endpoint(info).bind(avA, 0).bind(txCq, Flags.TRANSMIT);
            final Endpoint receiver = p.domainB.endpoint(info).bind(avB, 0).bind(rxCq, Flags.RECV);
            assertEquals(Errno.EOPBADSTATE.negated(), sender.txSizeLeft());
            assertEquals(Errno.EOPBADSTATE.negated(), receiver.rxSizeLeft());
            sender.enable();
            receiver.enable();
            final long dest = avA.insert(receiver.name());
            assertEquals(DEPTH, sender.txSizeLeft());
            assertEquals(DEPTH, receiver.rxSizeLeft());

            // Receives: one less per post, -EAGAIN at 0.
            final UnsafeBuffer[] rx = new UnsafeBuffer[DEPTH];
            for (int i = 0; i < DEPTH; i++)
            {
                rx[i] = direct(64);
                assertEquals(0, receiver.recv(rx[i], 0, 64, AddressVector.ADDR_UNSPEC, i));
                assertEquals(DEPTH - i - 1, receiver.rxSizeLeft());
            }
            assertEquals(Errno.EAGAIN.negated(), receiver.recv(direct(64), 0, 64, AddressVector.ADDR_UNSPEC, 99));

            // Sends: one less per post, -EAGAIN at 0.
            for (int i = 0; i < DEPTH; i++)
            {
                assertEquals(0, sender.send(pattern(32, i), 0, 32, dest, 100 + i));
                assertEquals(DEPTH - i - 1, sender.txSizeLeft());
            }
            assertEquals(Errno.EAGAIN.negated(), sender.send(pattern(32, 0), 0, 32, dest, 999));

            // Completions read give the room back, one by one.
            for (int i = 0; i < DEPTH; i++)
            {
                assertEquals(100 + i, one(txCq).context());
                assertEquals(i + 1, sender.txSizeLeft());
            }
            for (int i = 0; i < DEPTH; i++)
            {
                final CompletionEntry got = one(rxCq);
                assertEquals(i, got.context());
                assertEquals(32, got.len());
                Pair.assertPattern(rx[i], 0, 32, i);
                assertEquals(i + 1, receiver.rxSizeLeft());
            }
            sender.close();
            receiver.close();
            assertEquals(Errno.EOPBADSTATE.negated(), sender.txSizeLeft());
            txCq.close();
            rxCq.close();
            avA.close();
            avB.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCountPerContextOfAScalableEndpoint(final Progress progress)
    {
        final Info info = depthInfo(progress, 2);
        try (Pair p = pair(progress))
        {
            final AddressVector avA = p.domainA.addressVector(AvType.TABLE, 2);
            final AddressVector avB = p.domainB.addressVector(AvType.TABLE, 2);
            final CompletionQueue[] txCq = {
                p.domainA.completionQueue(DEPTH, CqFormat.TAGGED), p.domainA.completionQueue(DEPTH, CqFormat.TAGGED)};
            final CompletionQueue rxCq = p.domainB.completionQueue(4 * DEPTH, CqFormat.TAGGED);
            final ScalableEndpoint sep = p.domainA.scalableEndpoint(info).bind(avA, 0);
            final Endpoint[] tx = {
                sep.txContext(0, null).bind(txCq[0], Flags.TRANSMIT).enable(),
                sep.txContext(1, null).bind(txCq[1], Flags.TRANSMIT).enable()};
            sep.enable();
            final Endpoint receiver = p.domainB.endpoint(p.infoB).bind(avB, 0).bind(rxCq, Flags.RECV).enable();
            final long dest = avA.insert(receiver.name());
            final UnsafeBuffer rx = direct(64);
            for (int i = 0; i < 3; i++)
            {
                assertEquals(0, receiver.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, i));
                assertEquals(0, tx[0].send(pattern(8, i), 0, 8, dest, i));
            }
            // Context 0 used three of its slots, context 1 none.
            assertEquals(DEPTH - 3, tx[0].txSizeLeft());
            assertEquals(DEPTH, tx[1].txSizeLeft());
            for (int i = 0; i < 3; i++)
            {
                assertEquals(i, one(txCq[0]).context());
                assertEquals(i, one(rxCq).context());
            }
            assertEquals(DEPTH, tx[0].txSizeLeft());
            tx[0].close();
            tx[1].close();
            sep.close();
            receiver.close();
            txCq[0].close();
            txCq[1].close();
            rxCq.close();
            avA.close();
            avB.close();
        }
    }
}
