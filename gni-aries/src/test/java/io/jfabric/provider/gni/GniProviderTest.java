package io.jfabric.provider.gni;

import io.jfabric.AddressFormat;
import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CqFormat;
import io.jfabric.DomainAttr;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import io.jfabric.Protocol;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * gni's own rules: getInfo's answer (GNI.md §2.15), names, the atomic table of fi_gni(7), tinjectdata, data at the
 * protocol's boundaries (the eager clamp, the rendezvous and RDMA thresholds, unaligned GETs), inject 64 at every
 * alignment, delivery-complete sends.
 */
class GniProviderTest
{
    private static final long CAPS = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC;

    private static Info hints(final long caps, final Progress progress)
    {
        return Info.builder().caps(caps).fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).build())
            .domainAttr(DomainAttr.builder().mrMode(MrMode.MMU_NOTIFY).dataProgress(progress).build()).build();
    }

    private static Pair pair(final Progress progress)
    {
        final Info info = Fabric.getInfo(hints(CAPS, progress)).get(0);
        return new Pair(info, info, 0, CqFormat.TAGGED, 256);
    }

    @Test
    void shouldAnswerGetInfoAsFiGniSays()
    {
        final List<Info> infos = Fabric.getInfo(Info.builder().caps(CAPS)
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build()).build());
        final Info first = infos.get(0);
        assertEquals(EndpointType.RDM, first.epAttr().type());
        // RDM, then DGRAM, then MSG (GNI.md 2.15); MSG without named receive contexts, one context each way.
        assertEquals(List.of(EndpointType.RDM, EndpointType.DGRAM, EndpointType.MSG),
            infos.stream().map(i -> i.epAttr().type()).distinct().toList());
        final Info msg = infos.stream().filter(i -> i.epAttr().type() == EndpointType.MSG).findFirst().orElseThrow();
        assertEquals(0, msg.caps() & (Flags.NAMED_RX_CTX | Flags.DIRECTED_RECV));
        assertEquals(1, msg.domainAttr().maxEpTxCtx());
        assertEquals(1, msg.epAttr().rxCtxCnt());
        assertEquals(GniProvider.MAX_CONTEXTS, first.domainAttr().maxEpRxCtx());
        assertEquals(AddressFormat.GNI, first.addrFormat());
        assertEquals(0, first.mode());
        assertEquals("gni", first.fabricAttr().name());
        assertEquals(GniProvider.DOMAIN_NAME, first.domainAttr().name());
        assertEquals(Protocol.GNI, first.epAttr().protocol());
        assertEquals(64, first.txAttr().injectSize());
        assertEquals(500, first.txAttr().size());
        assertEquals(8, first.txAttr().iovLimit());
        assertEquals(1, first.txAttr().rmaIovLimit());
        assertEquals(Flags.REMOTE_COMM, first.domainAttr().caps());
        assertEquals(MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY, first.domainAttr().mrMode());
        assertEquals(Progress.AUTO, first.domainAttr().dataProgress());
        assertEquals(Progress.AUTO, first.domainAttr().controlProgress());
        assertEquals(0, first.caps() & (Flags.SOURCE | Flags.SOURCE_ERR | Flags.RMA_EVENT));
        assertEquals(Flags.MULTI_RECV | Flags.FENCE, first.caps() & (Flags.MULTI_RECV | Flags.FENCE));

        final Info str = Fabric.getInfo(Info.builder().addrFormat(AddressFormat.STR)
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build()).build()).get(0);
        assertEquals(AddressFormat.STR, str.addrFormat());
        final Info source = Fabric.getInfo(Info.builder().caps(Flags.MSG | Flags.SOURCE)
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build()).build()).get(0);
        assertEquals(Flags.SOURCE, source.caps() & Flags.SOURCE);

        final FabricException local = assertThrows(FabricException.class, () -> Fabric.getInfo(Info.builder()
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build())
            .domainAttr(DomainAttr.builder().caps(Flags.LOCAL_COMM).build()).build()));
        assertEquals(Errno.ENODATA, local.errno());
        final FabricException inject = assertThrows(FabricException.class, () -> Fabric.getInfo(Info.builder()
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build())
            .txAttr(io.jfabric.TxAttr.builder().injectSize(65).build()).build()));
        assertEquals(Errno.ENODATA, inject.errno());
    }

    @Test
    void shouldNameEndpointsWith48ByteNamesAndGniStrings()
    {
        final long key = GniName.key(0x1234, 1, 3);
        assertEquals(0x1234, GniName.device(key));
        assertEquals(1, GniName.instId(key));
        assertEquals(3, GniName.endpoint(key));
        final byte[] binary = GniName.binary(key, 0x5a5a0001);
        assertEquals(48, binary.length);
        assertEquals(key, GniName.parse(binary));
        final String text = GniName.text(key, 0x5a5a0001);
        assertEquals("gni;NONE;NONE;0001;0x00001234;0x00030001;02;0x000001;0x5a5a0001;01", text);
        assertEquals(GniName.STRING_LENGTH, text.length());
        assertEquals(key, GniName.parse(text.getBytes()));
        assertEquals(key, GniName.parse((text + ";0").getBytes()));
        assertEquals(-1, GniName.parse("gni;NONE;NONE;0001;0x1234zz;0x1;02;0x1;0x1;01".getBytes()));
        assertEquals(-1, GniName.parse(new byte[47]));
    }

    @Test
    void shouldAnswerTheAtomicTableOfFiGniWithCountOne()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            assertEquals(1, p.a.atomicValid(AtomicDatatype.INT64, AtomicOp.MIN));
            assertEquals(1, p.a.atomicValid(AtomicDatatype.FLOAT, AtomicOp.MAX));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.a.atomicValid(AtomicDatatype.UINT64, AtomicOp.MIN));
            assertEquals(1, p.a.atomicValid(AtomicDatatype.UINT32, AtomicOp.SUM));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.a.atomicValid(AtomicDatatype.DOUBLE, AtomicOp.SUM));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.a.atomicValid(AtomicDatatype.FLOAT, AtomicOp.BOR));
            assertEquals(1, p.a.atomicValid(AtomicDatatype.DOUBLE, AtomicOp.ATOMIC_WRITE));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.a.atomicValid(AtomicDatatype.INT64, AtomicOp.ATOMIC_READ));
            assertEquals(1, p.a.fetchAtomicValid(AtomicDatatype.INT64, AtomicOp.ATOMIC_READ));
            assertEquals(1, p.a.compareAtomicValid(AtomicDatatype.FLOAT, AtomicOp.CSWAP));
            assertEquals(1, p.a.compareAtomicValid(AtomicDatatype.UINT32, AtomicOp.MSWAP));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.a.compareAtomicValid(AtomicDatatype.INT64, AtomicOp.CSWAP_NE));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.a.atomicValid(AtomicDatatype.INT8, AtomicOp.ATOMIC_WRITE));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.a.atomicValid(AtomicDatatype.INT64, AtomicOp.PROD));
        }
    }

    @Test
    void shouldRefuseTinjectdataWithEnosys()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            assertEquals(Errno.ENOSYS.negated(), p.a.tinjectdata(direct(8), 0, 8, 1, p.addrBFromA, 1));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 59, 60, 61, 8191, 8192, 8193, 16343, 16344, 16345, 16383, 16384, 16385, 100_003})
    void shouldDeliverTaggedMessagesAtTheProtocolBoundaries(final int size)
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer rx = direct(size + 8);
            assertEquals(0, p.b.trecv(rx, 3, size, AddressVector.ADDR_UNSPEC, 7, 0, 1));
            final UnsafeBuffer tx = pattern(size + 8, size);
            assertEquals(0, p.a.tsend(tx, 1, size, p.addrBFromA, 7, 2));
            final CompletionEntry sent = one(p.cqA);
            assertEquals(2, sent.context());
            final CompletionEntry got = one(p.cqB);
            assertEquals(1, got.context());
            assertEquals(size, got.len());
            for (int i = 0; i < size; i++)
            {
                assertEquals(tx.getByte(1 + i), rx.getByte(3 + i), "byte " + i);
            }
        }
    }

    @Test
    void shouldInject64BytesAtEveryAlignment()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer rx = direct(64);
            for (int align = 0; align < 8; align++)
            {
                final UnsafeBuffer tx = pattern(80, align + 1);
                assertEquals(0, p.b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, align, 0, align));
                assertEquals(0, p.a.tinject(tx, align, 64, p.addrBFromA, align));
                tx.setMemory(0, 80, (byte) 0);
                assertEquals(align, one(p.cqB).context());
                final UnsafeBuffer expected = pattern(80, align + 1);
                for (int i = 0; i < 64; i++)
                {
                    assertEquals(expected.getByte(align + i), rx.getByte(i), "alignment " + align + " byte " + i);
                }
            }
            assertEquals(Errno.EMSGSIZE.negated(), p.a.tinject(direct(65), 0, 65, p.addrBFromA, 1));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldReadUnalignedRangesIndirectChainedAndByBte(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer target = pattern(32768, 9);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 32768, Flags.REMOTE_READ, 5))
            {
                final int[][] cases = {{1, 3}, {1, 59}, {2, 60}, {3, 61}, {0, 64}, {1, 8191}, {3, 9000}, {5, 20000}};
                int context = 10;
                for (final int[] c : cases)
                {
                    final UnsafeBuffer local = direct(c[1] + 2);
                    assertEquals(0, p.a.read(local, 1, c[1], p.addrBFromA, c[0], mr.key(), context));
                    assertEquals(context, one(p.cqA).context());
                    for (int i = 0; i < c[1]; i++)
                    {
                        assertEquals(target.getByte(c[0] + i), local.getByte(1 + i), "case " + c[0] + "+" + c[1] +
                            " byte " + i);
                    }
                    assertEquals(0, local.getByte(0));
                    assertEquals(0, local.getByte(c[1] + 1));
                    context++;
                }
            }
        }
    }

    @Test
    void shouldRunOneElementAtomicsOnTheNicAndRefuseMisalignedTargets()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer target = direct(64);
            target.putLong(8, 40);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_READ | Flags.REMOTE_WRITE, 6))
            {
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 2);
                final UnsafeBuffer result = direct(8);
                assertEquals(0, p.a.fetchAtomic(operand, 0, 1, result, 0, p.addrBFromA, 8, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 1));
                assertEquals(1, one(p.cqA).context());
                assertEquals(40, result.getLong(0));
                assertEquals(42, target.getLong(8));
                final UnsafeBuffer compare = direct(8);
                compare.putLong(0, 42);
                operand.putLong(0, 7);
                assertEquals(0, p.a.compareAtomic(operand, 0, 1, compare, 0, result, 0, p.addrBFromA, 8, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.CSWAP, 2));
                assertEquals(2, one(p.cqA).context());
                assertEquals(42, result.getLong(0));
                assertEquals(7, target.getLong(8));
                assertEquals(Errno.EMSGSIZE.negated(), p.a.atomic(direct(16), 0, 2, p.addrBFromA, 8, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 3));
                assertEquals(0, p.a.atomic(operand, 0, 1, p.addrBFromA, 4, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 4));
                final CompletionErrorEntry misaligned = error(p.cqA);
                assertEquals(4, misaligned.context());
                assertEquals(Errno.EINVAL.value(), misaligned.err());
            }
        }
    }

    @Test
    void shouldCompleteDeliveryCompleteSendsWhenTheReceiverTookThem()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.a.sendmsg(new Message().buffer(pattern(64, 2), 0, 64).addr(p.addrBFromA).context(2),
                Flags.COMPLETION | Flags.DELIVERY_COMPLETE));
            assertEquals(1, one(p.cqB).context());
            assertEquals(2, one(p.cqA).context());
            assertPattern(rx, 0, 64, 2);
        }
    }

    @Test
    void shouldParseDefaultAndUserAuthKeys()
    {
        assertEquals(GniConfiguration.DEFAULT_COOKIE, GniDomainTransport.cookie(null));
        assertEquals(0x1234_5678, GniDomainTransport.cookie(new byte[] {0, 0, 0, 0, 0x78, 0x56, 0x34, 0x12}));
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
            () -> GniDomainTransport.cookie(new byte[] {1, 0, 0, 0, 0, 0, 0, 0})).errno());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
            () -> GniDomainTransport.cookie(new byte[4])).errno());
        assertArrayEquals(new byte[0], new GniProvider().resolveAddress(AddressFormat.GNI, null, null, 0));
    }
}
