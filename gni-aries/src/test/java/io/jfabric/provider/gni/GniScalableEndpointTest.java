package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import io.jfabric.ScalableEndpoint;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.conformance.Pair.assertEmpty;
import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Scalable endpoints at gni's limits (GNI.md §2.14, {@code GNIX_SEP_MAX_CNT} = 128): getInfo grants 128 transmit and
 * 128 receive contexts with {@code FI_NAMED_RX_CTX} and refuses 129 ({@code ENODATA}); a scalable endpoint of 128 + 128
 * contexts opens in a fresh domain (256 endpoint indices, the runtime's per-domain count), 129 is {@code EINVAL}; a
 * message addressed with {@code fi_rx_addr} through an AV with {@code rx_ctx_bits} 8 reaches exactly the named receive
 * context, first, middle and last, and the last transmit context sends.
 */
@Timeout(60)
class GniScalableEndpointTest
{
    private static final int MAX = GniProvider.MAX_CONTEXTS;
    private static final int BITS = 8;

    private static Info info(final long contexts)
    {
        return Fabric.getInfo(Info.builder().caps(Flags.MSG | Flags.TAGGED | Flags.NAMED_RX_CTX)
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).txCtxCnt(contexts).rxCtxCnt(contexts).build())
            .domainAttr(DomainAttr.builder().mrMode(MrMode.MMU_NOTIFY).dataProgress(Progress.AUTO).build())
            .build()).get(0);
    }

    @Test
    void shouldGrantAndOpen128ContextsEachAndRouteToTheNamedOne()
    {
        final Info info = info(MAX);
        assertEquals(MAX, info.epAttr().txCtxCnt());
        assertEquals(MAX, info.epAttr().rxCtxCnt());
        assertEquals(MAX, info.domainAttr().maxEpTxCtx());
        assertEquals(MAX, info.domainAttr().maxEpRxCtx());
        assertEquals(Flags.NAMED_RX_CTX, info.caps() & Flags.NAMED_RX_CTX);
        assertEquals(Errno.ENODATA, assertThrows(FabricException.class, () -> info(MAX + 1)).errno());
        try (Fabric fabric = Fabric.open(info);
            Domain domainA = fabric.domain(info, "yield");
            Domain domainB = fabric.domain(info, "yield");
            AddressVector avA = domainA.addressVector(AvAttr.builder().type(AvType.TABLE).count(4).rxCtxBits(BITS)
                .build());
            AddressVector avB = domainB.addressVector(AvType.TABLE, 4);
            CompletionQueue cqA = domainA.completionQueue(64, CqFormat.TAGGED);
            CompletionQueue txB = domainB.completionQueue(64, CqFormat.TAGGED);
            CompletionQueue rxB = domainB.completionQueue(MAX + 8, CqFormat.TAGGED))
        {
            final Info tooMany = info.toBuilder().epAttr(info.epAttr().toBuilder().rxCtxCnt(MAX + 1).build()).build();
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> domainB.scalableEndpoint(tooMany))
                .errno());
            final ScalableEndpoint sep = domainB.scalableEndpoint(info).bind(avB, 0);
            assertEquals(MAX, sep.txContextCount());
            assertEquals(MAX, sep.rxContextCount());
            final Endpoint[] tx = new Endpoint[MAX];
            final Endpoint[] rx = new Endpoint[MAX];
            final UnsafeBuffer[] buffers = new UnsafeBuffer[MAX];
            for (int i = 0; i < MAX; i++)
            {
                tx[i] = sep.txContext(i, null).bind(txB, Flags.TRANSMIT).enable();
                rx[i] = sep.rxContext(i, null).bind(rxB, Flags.RECV).enable();
                buffers[i] = direct(256);
                assertEquals(0, rx[i].recv(buffers[i], 0, 256, AddressVector.ADDR_UNSPEC, i));
            }
            sep.enable();
            final Endpoint a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
            final long toB = avA.insert(sep.name());
            final long toA = avB.insert(a.name());
            for (final int target : new int[] {0, 1, 63, 64, MAX - 1})
            {
                assertEquals(0, a.send(pattern(100 + target, target), 0, 100 + target,
                    AddressVector.rxAddr(toB, target, BITS), 1000 + target));
                final CompletionEntry got = one(rxB);
                assertEquals(target, got.context(), "the named receive context took it");
                assertEquals(100 + target, got.len());
                assertEquals(Flags.RECV | Flags.MSG, got.flags());
                assertPattern(buffers[target], 0, 100 + target, target);
                assertEquals(1000 + target, one(cqA).context());
                assertEmpty(rxB);
            }
            final UnsafeBuffer back = direct(64);
            assertEquals(0, a.recv(back, 0, 64, AddressVector.ADDR_UNSPEC, 7));
            assertEquals(0, tx[MAX - 1].send(pattern(64, 3), 0, 64, toA, 8));
            assertEquals(8, one(txB).context());
            final CompletionEntry last = one(cqA);
            assertEquals(7, last.context());
            assertEquals(64, last.len());
            assertPattern(back, 0, 64, 3);
            a.close();
            for (int i = 0; i < MAX; i++)
            {
                tx[i].close();
                rx[i].close();
            }
            sep.close();
        }
    }
}
