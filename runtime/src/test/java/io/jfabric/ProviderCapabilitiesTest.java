package io.jfabric;

import io.jfabric.spi.OpsType;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.nio.ByteBuffer;
import java.util.List;

import static io.jfabric.InprocPair.direct;
import static io.jfabric.InprocPair.one;
import static io.jfabric.InprocPair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The runtime enforces a provider's {@link io.jfabric.spi.ProviderCapabilities} without naming it: the test-only
 * {@link DescribedTestProvider} (narrowed atomic table, MR alignment and key rules, authorization keys, refused
 * operations, separate multi-recv release entries, open_ops extensions) against {@code inproc}, which describes
 * nothing and keeps the runtime's full behaviour. Both move frames through the same inproc transport, so every
 * difference seen here comes from the description.
 */
@Timeout(60)
class ProviderCapabilitiesTest
{
    private static final long CAPS = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC | Flags.MULTI_RECV;

    static Info described(final String domainName, final long caps)
    {
        final Info hints = Info.builder()
            .caps(caps)
            .mode(Mode.CONTEXT2)
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build())
            .fabricAttr(FabricAttr.builder().provName(DescribedTestProvider.NAME).build())
            .build();
        final Info info = Fabric.getInfo(hints).get(0);
        return info.toBuilder().domainAttr(info.domainAttr().toBuilder().name(domainName).build()).build();
    }

    static Info inproc(final long caps)
    {
        return Fabric.getInfo(Info.builder()
            .caps(caps)
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build())
            .fabricAttr(FabricAttr.builder().provName("inproc").build())
            .build()).get(0);
    }

    static UnsafeBuffer pageAligned()
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 4096));
    }

    static Errno errnoOf(final Executable call)
    {
        return assertThrows(FabricException.class, call).errno();
    }

    @Test
    void shouldAnswerAtomicQueriesFromEachProvidersOwnTable()
    {
        try (InprocPair p = new InprocPair(described("caps-query", CAPS), 0, CqFormat.TAGGED, 64);
            Fabric fabric = Fabric.open(inproc(CAPS));
            Domain full = fabric.domain(null))
        {
            // The described table: 64-byte vectors, no 8/16-bit types, no SUM on doubles, no PROD.
            assertEquals(8, p.domainA.queryAtomic(AtomicDatatype.INT64, AtomicOp.SUM, 0));
            assertEquals(16, p.domainA.queryAtomic(AtomicDatatype.INT32, AtomicOp.CSWAP, Flags.COMPARE_ATOMIC));
            assertEquals(8, p.domainA.queryAtomic(AtomicDatatype.DOUBLE, AtomicOp.MIN, 0));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.domainA.queryAtomic(AtomicDatatype.INT8, AtomicOp.SUM, 0));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.domainA.queryAtomic(AtomicDatatype.DOUBLE, AtomicOp.SUM, 0));
            assertEquals(Errno.EOPNOTSUPP.negated(),
                p.domainA.queryAtomic(AtomicDatatype.DOUBLE, AtomicOp.SUM, Flags.FETCH_ATOMIC));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.domainA.queryAtomic(AtomicDatatype.INT32, AtomicOp.PROD, 0));
            assertEquals(Errno.EBADFLAGS.negated(),
                p.domainA.queryAtomic(AtomicDatatype.INT32, AtomicOp.SUM, Flags.FETCH_ATOMIC | Flags.COMPARE_ATOMIC));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.a.atomicValid(AtomicDatatype.UINT16, AtomicOp.BOR));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.a.fetchAtomicValid(AtomicDatatype.DOUBLE, AtomicOp.SUM));
            assertEquals(8, p.a.fetchAtomicValid(AtomicDatatype.UINT64, AtomicOp.ATOMIC_READ));
            assertEquals(16, p.a.compareAtomicValid(AtomicDatatype.FLOAT, AtomicOp.CSWAP_LE));

            // inproc keeps the runtime's full table (256-byte vectors).
            assertEquals(256, full.queryAtomic(AtomicDatatype.INT8, AtomicOp.SUM, 0));
            assertEquals(32, full.queryAtomic(AtomicDatatype.DOUBLE, AtomicOp.SUM, Flags.FETCH_ATOMIC));
            assertEquals(64, full.queryAtomic(AtomicDatatype.INT32, AtomicOp.PROD, 0));
        }
    }

    @Test
    void shouldRefuseAtPostAnAtomicOutsideTheProvidersTableAndRunOneInside()
    {
        try (InprocPair p = new InprocPair(described("caps-atomic", CAPS), 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer target = direct(64);
            target.putLong(0, 40);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 64, Flags.REMOTE_READ | Flags.REMOTE_WRITE, 3))
            {
                final UnsafeBuffer operands = direct(128);
                operands.putLong(0, 2);
                assertEquals(Errno.EOPNOTSUPP.negated(), p.a.atomic(operands, 0, 1, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT8, AtomicOp.SUM, 1));
                assertEquals(Errno.EOPNOTSUPP.negated(), p.a.atomic(operands, 0, 1, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.PROD, 2));
                assertEquals(Errno.EOPNOTSUPP.negated(), p.a.fetchAtomic(operands, 0, 1, direct(8), 0, p.addrBFromA,
                    0, mr.key(), AtomicDatatype.DOUBLE, AtomicOp.SUM, 3));
                // 64-byte vectors: 9 INT64 elements are too many here (the full table takes 32).
                assertEquals(Errno.EMSGSIZE.negated(), p.a.atomic(operands, 0, 9, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 4));
                assertEquals(0, p.a.atomic(operands, 0, 1, p.addrBFromA, 0, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 5));
                assertEquals(5, one(p.cqA).context());
                assertEquals(42, target.getLong(0));
            }
        }
    }

    @Test
    void shouldEnforceTheProvidersMrAlignmentAndKeyRules()
    {
        final ByteBuffer block = BufferUtil.allocateDirectAligned(3 * 4096, 4096);
        final UnsafeBuffer aligned = new UnsafeBuffer(block, 0, 4096);
        final UnsafeBuffer unaligned = new UnsafeBuffer(block, 4096 + 64, 1024);
        final long access = Flags.REMOTE_READ | Flags.REMOTE_WRITE;
        try (Fabric fabric = Fabric.open(described("caps-mr", CAPS));
            Domain domain = fabric.domain(null);
            Fabric inprocFabric = Fabric.open(inproc(CAPS));
            Domain inprocDomain = inprocFabric.domain(null))
        {
            // fi_mr_regv and fi_mr_regattr: page-aligned segments only.
            assertEquals(Errno.EINVAL, errnoOf(() -> domain.registerMemory(
                new DirectBuffer[]{ aligned, unaligned }, 2, access, 10)));
            assertEquals(Errno.EINVAL, errnoOf(() -> domain.registerMemory(
                MrAttr.builder().iov(unaligned).access(access).requestedKey(11).build(), 0)));
            // fi_mr_reg is not under the rule.
            try (MemoryRegion plain = domain.registerMemory(unaligned, 0, 1024, access, 12);
                MemoryRegion vector = domain.registerMemory(new DirectBuffer[]{ aligned }, 1, access, 13))
            {
                assertEquals(12, plain.key());
                assertEquals(13, vector.key());
                // The provider's validator: requested keys from 192 on are rejected.
                assertEquals(Errno.EKEYREJECTED, errnoOf(() -> domain.registerMemory(aligned, 0, 64, access, 192)));
                // The runtime's own registry still answers a key in use.
                assertEquals(Errno.ENOKEY, errnoOf(() -> domain.registerMemory(aligned, 0, 64, access, 12)));
            }
            // inproc has no such rule.
            try (MemoryRegion free = inprocDomain.registerMemory(new DirectBuffer[]{ unaligned }, 1, access, 500))
            {
                assertEquals(500, free.key());
            }
        }
    }

    @Test
    void shouldGiveAuthorizationKeysToAProviderThatTakesThemOnly()
    {
        final byte[] key = { 1, 2, 3, 4, 5, 6, 7, 8 };
        final Info hints = Info.builder()
            .caps(CAPS)
            .mode(Mode.CONTEXT2)
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).authKey(key).build())
            .epAttr(EpAttr.builder().authKey(new byte[]{ 9 }).build())
            .build();
        // getInfo: the provider that takes keys is offered with them; one that does not drops out.
        final List<Info> infos = Fabric.getInfo(hints);
        assertTrue(infos.stream().allMatch((i) -> DescribedTestProvider.NAME.equals(i.providerName())),
            infos.toString());
        assertEquals(1, infos.size());
        final Info info = infos.get(0);
        assertEquals(8, info.domainAttr().authKey().length);
        assertEquals(Errno.ENODATA, errnoOf(() -> Fabric.getInfo(hints.toBuilder()
            .fabricAttr(FabricAttr.builder().provName("inproc").build()).build())));
        assertEquals(Errno.ENODATA, errnoOf(() -> Fabric.getInfo(hints.toBuilder()
            .domainAttr(hints.domainAttr().toBuilder().authKey(new byte[9]).build()).build())));

        // The transport receives the domain's and the endpoint's keys; regattr takes one.
        final Info named = info.toBuilder().domainAttr(info.domainAttr().toBuilder().name("caps-keys").build()).build();
        try (Fabric fabric = Fabric.open(named);
            Domain domain = fabric.domain(null);
            Endpoint endpoint = domain.endpoint(null);
            MemoryRegion mr = domain.registerMemory(MrAttr.builder().iov(pageAligned()).access(Flags.REMOTE_READ)
                .requestedKey(7).authKey(new byte[]{ 5 }).build(), 0))
        {
            assertEquals(0, endpoint.index());
            assertEquals(7, mr.key());
            assertEquals(Errno.EINVAL, errnoOf(() -> domain.registerMemory(MrAttr.builder().iov(pageAligned())
                .access(Flags.REMOTE_READ).requestedKey(8).authKey(new byte[9]).build(), 0)));
        }
        assertEquals(List.of("openFabric", "openDomain caps-keys key 8", "openEndpoint 0 key 1", "closeEndpoint 0",
            "closeDomain", "closeFabric"), DescribedTestProvider.events("caps-keys"));

        // inproc takes none: a domain or an endpoint with a key is refused.
        final Info plain = inproc(CAPS);
        try (Fabric fabric = Fabric.open(plain))
        {
            assertEquals(Errno.EOPNOTSUPP, errnoOf(() -> fabric.domain(plain.toBuilder()
                .domainAttr(plain.domainAttr().toBuilder().authKey(key).build()).build())));
            try (Domain domain = fabric.domain(null))
            {
                assertEquals(Errno.EOPNOTSUPP, errnoOf(() -> domain.endpoint(plain.toBuilder()
                    .epAttr(plain.epAttr().toBuilder().authKey(key).build()).build())));
            }
        }
    }

    @Test
    void shouldAnswerTheOperationsTheProviderDoesNotOfferWithItsErrno()
    {
        final UnsafeBuffer payload = pattern(16, 3);
        try (InprocPair p = new InprocPair(described("caps-ops", CAPS | Flags.WRITE | Flags.REMOTE_WRITE), 0,
            CqFormat.TAGGED, 64))
        {
            assertEquals(Errno.ENOSYS.negated(), p.a.tinjectdata(payload, 0, 16, 99, p.addrBFromA, 5));
            assertEquals(Errno.EOPNOTSUPP.negated(), p.a.injectWritedata(payload, 0, 16, 99, p.addrBFromA, 0, 1));
            // The same sends through offered calls go: tinject, and tsendmsg with FI_INJECT | FI_REMOTE_CQ_DATA.
            final UnsafeBuffer rx = direct(16);
            assertEquals(0, p.b.trecv(rx, 0, 16, AddressVector.ADDR_UNSPEC, 5, 0, 1));
            assertEquals(0, p.a.tinject(payload, 0, 16, p.addrBFromA, 5));
            assertEquals(1, one(p.cqB).context());
            assertEquals(0, p.b.trecv(rx, 0, 16, AddressVector.ADDR_UNSPEC, 6, 0, 2));
            assertEquals(0, p.a.tsendmsg(new Message().buffer(payload, 0, 16).addr(p.addrBFromA).tag(6).data(99)
                .context(3), Flags.INJECT | Flags.REMOTE_CQ_DATA));
            final CompletionEntry received = one(p.cqB);
            assertEquals(2, received.context());
            assertEquals(99, received.data());
            assertEquals(3, one(p.cqA).context());
        }
        try (InprocPair p = new InprocPair(inproc(CAPS), 0, CqFormat.TAGGED, 64))
        {
            final UnsafeBuffer rx = direct(16);
            assertEquals(0, p.b.trecv(rx, 0, 16, AddressVector.ADDR_UNSPEC, 5, 0, 1));
            assertEquals(0, p.a.tinjectdata(payload, 0, 16, 99, p.addrBFromA, 5));
            assertEquals(99, one(p.cqB).data());
        }
    }

    @Test
    void shouldReportAMultiRecvReleaseAsTheProviderDescribesIt()
    {
        try (InprocPair p = new InprocPair(described("caps-multi", CAPS), 0, CqFormat.TAGGED, 64))
        {
            // No message completion carries FI_MULTI_RECV; a separate entry follows the last one.
            assertEquals(List.of(0L, 0L), multiRecvFlags(p));
            final CompletionEntry release = one(p.cqB);
            assertEquals(70, release.context());
            assertEquals(Flags.MULTI_RECV, release.flags());
            assertEquals(0, release.len());
            assertEquals(0, release.buf());
            InprocPair.assertEmpty(p.cqB);
        }
        try (InprocPair p = new InprocPair(inproc(CAPS), 0, CqFormat.TAGGED, 64))
        {
            // The runtime's default: the message that used the buffer up carries it, nothing follows.
            assertEquals(List.of(0L, Flags.MULTI_RECV), multiRecvFlags(p));
            InprocPair.assertEmpty(p.cqB);
        }
    }

    @Test
    void shouldKeepRoomForASeparateMultiRecvReleaseWhenTheCompletionRingIsAlmostFull()
    {
        // CQ size 1: its ring holds 2 entries. The first message's completion stays unread while the second, which
        // releases the buffer, arrives: it must wait for room for both of its entries rather than lose the release.
        try (InprocPair p = new InprocPair(described("caps-multi-full", CAPS), 0, CqFormat.TAGGED, 1))
        {
            p.b.setOption(Endpoint.OPT_MIN_MULTI_RECV, 64);
            assertEquals(0, p.b.recvmsg(new Message().buffer(direct(256), 0, 256).addr(AddressVector.ADDR_UNSPEC)
                .context(80), Flags.MULTI_RECV));
            for (int i = 0; i < 2; i++)
            {
                assertEquals(0, p.a.send(pattern(100, i), 0, 100, p.addrBFromA, 20 + i));
                assertEquals(20 + i, one(p.cqA).context());
            }
            final CompletionEntry first = one(p.cqB);
            assertEquals(100, first.len());
            assertEquals(Flags.MSG | Flags.RECV, first.flags());
            final CompletionEntry second = one(p.cqB);
            assertEquals(100, second.len());
            assertEquals(Flags.MSG | Flags.RECV, second.flags());
            final CompletionEntry release = one(p.cqB);
            assertEquals(80, release.context());
            assertEquals(Flags.MULTI_RECV, release.flags());
            InprocPair.assertEmpty(p.cqB);
        }
    }

    /**
     * Two 100-byte messages into a 256-byte multi-recv buffer with min_multi_recv 64: the second releases it.
     *
     * @return the FI_MULTI_RECV bit of each message completion.
     */
    private static List<Long> multiRecvFlags(final InprocPair p)
    {
        p.b.setOption(Endpoint.OPT_MIN_MULTI_RECV, 64);
        final UnsafeBuffer buffer = direct(256);
        assertEquals(0, p.b.recvmsg(new Message().buffer(buffer, 0, 256).addr(AddressVector.ADDR_UNSPEC).context(70),
            Flags.MULTI_RECV));
        final long[] flags = new long[2];
        for (int i = 0; i < 2; i++)
        {
            assertEquals(0, p.a.send(pattern(100, i), 0, 100, p.addrBFromA, 10 + i));
            final CompletionEntry rx = one(p.cqB);
            assertEquals(70, rx.context());
            assertEquals(100, rx.len());
            assertEquals(Flags.MSG | Flags.RECV, rx.flags() & ~Flags.MULTI_RECV);
            flags[i] = rx.flags() & Flags.MULTI_RECV;
            assertEquals(10 + i, one(p.cqA).context());
        }
        return List.of(flags[0], flags[1]);
    }

    @Test
    void shouldRouteOpenOpsToTheProviderAfterCheckingNamesTypesAndRanges()
    {
        try (InprocPair p = new InprocPair(described("caps-ops-ext", CAPS), 0, CqFormat.TAGGED, 64);
            Fabric inprocFabric = Fabric.open(inproc(CAPS)))
        {
            final OpenOps fabricOps = p.fabric.openOps(DescribedTestProvider.FABRIC_OPS);
            assertEquals(DescribedTestProvider.FABRIC_OPS, fabricOps.name());
            assertEquals(OpsType.UINT32, fabricOps.type(0));
            assertEquals(20, fabricOps.get(0));
            assertEquals(50, fabricOps.set(0, 50).get(0));
            assertEquals(Errno.EINVAL, errnoOf(() -> fabricOps.set(0, -1)));
            assertEquals(Errno.EINVAL, errnoOf(() -> fabricOps.set(0, 1L << 32)));
            assertEquals(Errno.EINVAL, errnoOf(() -> fabricOps.set(1, 5000)));
            assertEquals(192, fabricOps.get(1));
            assertEquals(Errno.EINVAL, errnoOf(() -> fabricOps.set(0, "fast")));
            assertEquals(Errno.EINVAL, errnoOf(() -> fabricOps.get(7)));
            assertEquals(Errno.ENOSYS, errnoOf(() -> p.fabric.openOps("fab ops 9")));
            assertEquals(Errno.ENOSYS, errnoOf(() -> inprocFabric.openOps(DescribedTestProvider.FABRIC_OPS)));
            assertEquals(Errno.EINVAL, errnoOf(() -> p.fabric.openOps(null)));

            final OpenOps opsA = p.domainA.openOps(DescribedTestProvider.DOMAIN_OPS);
            final OpenOps opsB = p.domainB.openOps(DescribedTestProvider.DOMAIN_OPS);
            assertEquals("internal", opsA.getString(1));
            opsA.set(1, "none");
            assertEquals("none", opsA.getString(1));
            assertEquals("internal", opsB.getString(1));
            assertEquals(Errno.EINVAL, errnoOf(() -> opsA.set(1, "udreg")));
            assertEquals(Errno.EINVAL, errnoOf(() -> opsA.get(1)));
            assertEquals(Errno.EINVAL, errnoOf(() -> opsA.set(2, 65)));
            assertEquals(10, opsA.set(2, 10).get(2));
            assertEquals(5, opsB.get(2));
            assertFalse(opsA.getBoolean(0));
            assertEquals(Errno.EINVAL, errnoOf(() -> opsA.set(0, 2)));
            assertEquals(Errno.ENOSYS, errnoOf(() -> p.domainA.openOps(DescribedTestProvider.FABRIC_OPS)));

            final OpenOps epA = p.a.openOps(DescribedTestProvider.EP_OPS);
            epA.set(0, true);
            assertTrue(epA.getBoolean(0));
            assertFalse(p.b.openOps(DescribedTestProvider.EP_OPS).getBoolean(0));
            assertEquals(Errno.ENOSYS, errnoOf(() -> p.a.openOps(DescribedTestProvider.DOMAIN_OPS)));
        }
    }

    @Test
    void shouldKeepTheDefaultDescriptionForAProviderThatGivesNone()
    {
        final io.jfabric.spi.ProviderCapabilities defaults = new io.jfabric.provider.inproc.InprocProvider()
            .capabilities(inproc(CAPS));
        assertEquals(0, defaults.refusedOperations());
        assertEquals(0, defaults.authKeySize());
        assertEquals(io.jfabric.spi.ProviderCapabilities.MultiRecvCompletion.WITH_LAST_MESSAGE,
            defaults.multiRecvCompletion());
        assertEquals(io.jfabric.spi.AtomicCapabilities.full(256), defaults.atomics());
        assertNotEquals(defaults.atomics(), DescribedTestProvider.ATOMICS);
    }
}
