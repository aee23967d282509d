package io.jfabric.provider.gni;

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
import io.jfabric.MrMode;
import io.jfabric.OpenOps;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import io.jfabric.spi.OpsType;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * gni's {@code fi_open_ops} extensions (GNI.md §2.12): every option of {@code FI_GNI_DOMAIN_OPS_1},
 * {@code FI_GNI_EP_OPS_1}, {@code FI_GNI_FAB_OPS_1} and {@code _2} with its type, default, range and errors, both
 * spellings of the names, and the thresholds taking effect (seen in the NIC's FMA/BTE post counts).
 */
class GniOpsTest
{
    private static final long CAPS = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC;
    private static final long[] DOMAIN_DEFAULTS = {
        16384, 8192, 64, 16384, 2, 128, 2, 2048, 64, 16384, 16384, 2048, 5, 0, 1, -1, 2048, 4096, -1, 128, 0, 100, 0};

    static byte[] authKey(final int cookie)
    {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0).putInt(4, cookie).array();
    }

    static Info info(final long mrMode, final Progress progress, final byte[] authKey, final long caps)
    {
        return Fabric.getInfo(Info.builder().caps(caps)
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).build())
            .domainAttr(DomainAttr.builder().mrMode(mrMode).dataProgress(progress).authKey(authKey).build())
            .build()).get(0);
    }

    static Pair pair(final long mrMode, final Progress progress)
    {
        final Info info = info(mrMode, progress, null, CAPS);
        return new Pair(info, info, 0, CqFormat.TAGGED, 256);
    }

    static int errno(final Runnable call)
    {
        return assertThrows(FabricException.class, call::run).errno().value();
    }

    @Test
    void shouldReadAndWriteEveryDomainOptionWithItsTypeDefaultAndRange()
    {
        try (Pair p = pair(MrMode.MMU_NOTIFY, Progress.AUTO))
        {
            final OpenOps ops = p.domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            assertEquals("domain ops 1", ops.name());
            for (int option = 0; option < GniOps.GNI_NUM_DOM_OPS; option++)
            {
                if (GniOps.GNI_MR_CACHE == option)
                {
                    assertEquals(OpsType.STRING, ops.type(option));
                    continue;
                }
                assertEquals(DOMAIN_DEFAULTS[option], ops.get(option), "option " + option);
            }
            assertEquals(OpsType.UINT32, ops.type(GniOps.GNI_MSG_RENDEZVOUS_THRESHOLD));
            assertEquals(OpsType.INT32, ops.type(GniOps.GNI_ERR_INJECT_COUNT));
            assertEquals(OpsType.INT32, ops.type(GniOps.GNI_MR_HARD_REG_LIMIT));
            assertEquals(OpsType.BOOLEAN, ops.type(GniOps.GNI_XPMEM_ENABLE));
            assertEquals(false, ops.getBoolean(GniOps.GNI_XPMEM_ENABLE));
            // A scalable domain starts with no MR cache, as upstream forces.
            assertEquals("none", ops.getString(GniOps.GNI_MR_CACHE));
            assertEquals(GniOps.GNI_MR_UDREG_REG_LIMIT, GniOps.GNI_MR_UDREG_LIMIT);

            ops.set(GniOps.GNI_MAX_RETRANSMITS, 0);
            assertEquals(0, ops.get(GniOps.GNI_MAX_RETRANSMITS));
            ops.set(GniOps.GNI_ERR_INJECT_COUNT, -3);
            assertEquals(-3, ops.get(GniOps.GNI_ERR_INJECT_COUNT));
            ops.set(GniOps.GNI_MBOX_MSG_MAX_SIZE, 65535);
            assertEquals(65535, ops.get(GniOps.GNI_MBOX_MSG_MAX_SIZE));
            ops.set(GniOps.GNI_XPMEM_ENABLE, true);
            assertEquals(true, ops.getBoolean(GniOps.GNI_XPMEM_ENABLE));
            ops.set(GniOps.GNI_MR_CACHE, "udreg");
            assertEquals("udreg", ops.getString(GniOps.GNI_MR_CACHE));

            final int einval = Errno.EINVAL.value();
            assertEquals(einval, errno(() -> ops.get(GniOps.GNI_NUM_DOM_OPS)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_NUM_DOM_OPS, 1)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_RMA_RDMA_THRESHOLD, -1)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_RMA_RDMA_THRESHOLD, 1L << 32)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_MBOX_MSG_MAX_SIZE, 65536)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_MBOX_MAX_CREDIT, 0)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_RX_CQ_SIZE, 0)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_MBOX_NUM_PER_SLAB, 0)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_CONN_TABLE_STEP_SIZE, 1)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_CONN_TABLE_INITIAL_SIZE, 0)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_MR_UDREG_REG_LIMIT, -1)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_MR_CACHE, "udre")));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_MR_CACHE, 1)));
            assertEquals(einval, errno(() -> ops.get(GniOps.GNI_MR_CACHE)));
            assertEquals(einval, errno(() -> ops.set(GniOps.GNI_STAT_FMA_POSTS, 1)));
            assertEquals(0, ops.as(GniDomainOps.class).flushCache());
            assertEquals(Errno.EOPNOTSUPP.value(), errno(() -> ops.as(GniEpOps.class)));
            assertEquals(Errno.ENOSYS.value(), errno(() -> p.domainA.openOps("domain ops 2")));
            // Per domain: the other domain kept its defaults.
            assertEquals(5, p.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1).get(GniOps.GNI_MAX_RETRANSMITS));
        }
    }

    @Test
    void shouldSendByRendezvousAndWriteByBteAtTheThresholdsSet()
    {
        try (Pair p = pair(MrMode.MMU_NOTIFY, Progress.AUTO))
        {
            final OpenOps opsA = p.domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            final OpenOps opsB = p.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            final UnsafeBuffer source = pattern(2000, 3);
            final UnsafeBuffer sink = direct(2000);

            // 2000 B is eager by default: the receiver pulls nothing.
            long pulls = opsB.get(GniOps.GNI_STAT_BTE_POSTS);
            assertEquals(0, p.b.recv(sink, 0, 2000, p.addrAFromB, 1));
            assertEquals(0, p.a.send(source, 0, 2000, p.addrBFromA, 2));
            assertEquals(2, one(p.cqA).context());
            assertEquals(1, one(p.cqB).context());
            assertPattern(sink, 0, 2000, 3);
            assertEquals(pulls, opsB.get(GniOps.GNI_STAT_BTE_POSTS));

            // GNI_MSG_RENDEZVOUS_THRESHOLD 1024: the same message goes by rendezvous (one BTE GET at the receiver).
            opsA.set(GniOps.GNI_MSG_RENDEZVOUS_THRESHOLD, 1024);
            sink.setMemory(0, 2000, (byte) 0);
            assertEquals(0, p.b.recv(sink, 0, 2000, p.addrAFromB, 3));
            assertEquals(0, p.a.send(source, 0, 2000, p.addrBFromA, 4));
            assertEquals(4, one(p.cqA).context());
            assertEquals(3, one(p.cqB).context());
            assertPattern(sink, 0, 2000, 3);
            assertEquals(pulls + 1, opsB.get(GniOps.GNI_STAT_BTE_POSTS));

            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096, Flags.REMOTE_WRITE, 7))
            {
                final long fma = opsA.get(GniOps.GNI_STAT_FMA_POSTS);
                final long bte = opsA.get(GniOps.GNI_STAT_BTE_POSTS);
                final UnsafeBuffer local = pattern(512, 5);
                assertEquals(0, p.a.write(local, 0, 512, p.addrBFromA, 0, mr.key(), 5));
                assertEquals(5, one(p.cqA).context());
                assertEquals(fma + 1, opsA.get(GniOps.GNI_STAT_FMA_POSTS));
                assertEquals(bte, opsA.get(GniOps.GNI_STAT_BTE_POSTS));
                // GNI_RMA_RDMA_THRESHOLD 256: 512 B now goes by BTE.
                opsA.set(GniOps.GNI_RMA_RDMA_THRESHOLD, 256);
                assertEquals(0, p.a.write(local, 0, 512, p.addrBFromA, 1024, mr.key(), 6));
                assertEquals(6, one(p.cqA).context());
                assertEquals(fma + 1, opsA.get(GniOps.GNI_STAT_FMA_POSTS));
                assertEquals(bte + 1, opsA.get(GniOps.GNI_STAT_BTE_POSTS));
                assertPattern(target, 0, 512, 5);
                assertPattern(target, 1024, 512, 5);
            }
        }
    }

    @Test
    void shouldSetTheHashTagImplementationOnlyBeforeTheEndpointIsEnabled()
    {
        try (Pair p = pair(MrMode.MMU_NOTIFY, Progress.AUTO))
        {
            final OpenOps enabled = p.a.openOps(GniOps.FI_GNI_EP_OPS_1);
            assertEquals(0, enabled.get(GniOps.GNI_HASH_TAG_IMPL));
            assertEquals(Errno.EINVAL.value(), errno(() -> enabled.set(GniOps.GNI_HASH_TAG_IMPL, 1)));
            assertEquals(Errno.EINVAL.value(), errno(() -> enabled.get(1)));
            assertEquals(Errno.ENOSYS.value(), errno(() -> p.a.openOps(GniOps.FI_GNI_DOMAIN_OPS_1)));

            try (io.jfabric.Endpoint fresh = p.domainA.endpoint(p.infoA))
            {
                final OpenOps ops = fresh.openOps(GniOps.FI_GNI_EP_OPS_1);
                assertEquals(Errno.EINVAL.value(), errno(() -> ops.set(GniOps.GNI_HASH_TAG_IMPL, 2)));
                ops.set(GniOps.GNI_HASH_TAG_IMPL, 1);
                assertEquals(1, ops.get(GniOps.GNI_HASH_TAG_IMPL));
                fresh.bind(p.avA, 0).bind(p.cqA, Flags.TRANSMIT | Flags.RECV).enable();
                assertEquals(1, ops.get(GniOps.GNI_HASH_TAG_IMPL));
                assertEquals(Errno.EINVAL.value(), errno(() -> ops.set(GniOps.GNI_HASH_TAG_IMPL, 0)));
                // A tagged receive with ignore bits is matched whatever the storage (upstream's hashed list missed it).
                final UnsafeBuffer sink = direct(8);
                final long freshFromB = p.avB.insert(fresh.name());
                assertEquals(0, p.b.tsend(pattern(8, 1), 0, 8, freshFromB, 0x1234, 11));
                assertEquals(0, fresh.trecv(sink, 0, 8, io.jfabric.AddressVector.ADDR_UNSPEC, 0x1200, 0xFF, 12));
                assertEquals(12, one(p.cqA).context());
                assertPattern(sink, 0, 8, 1);
                assertEquals(11, one(p.cqB).context());
            }
        }
    }

    @Test
    void shouldRunNativeAxAndFaxAndTheir32BitFormsOnTheAmoUnit()
    {
        try (Pair p = pair(MrMode.MMU_NOTIFY, Progress.AUTO))
        {
            final GniEpOps ops = p.a.openOps(GniOps.FI_GNI_EP_OPS_1).as(GniEpOps.class);
            final UnsafeBuffer target = direct(4096);
            target.putLong(0, 0xF0F0L);
            target.putLong(8, 0x1111_1111_2222_2222L);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096, Flags.REMOTE_READ | Flags.REMOTE_WRITE,
                8))
            {
                final UnsafeBuffer operands = direct(16);
                final UnsafeBuffer result = direct(8);
                // AX: new = (old & op1) ^ op2.
                operands.putLong(0, 0xFF00L);
                operands.putLong(8, 0x000FL);
                assertEquals(0, ops.nativeAmo(p.a, operands, 0, null, 0, p.addrBFromA, 0, mr.key(),
                    GniOps.GNIX_FAB_RQ_NAMO_AX, 1));
                assertEquals(1, one(p.cqA).context());
                assertEquals(0xF00FL, target.getLong(0));
                // FAX returns the old value.
                operands.putLong(0, 0x0FFFL);
                operands.putLong(8, 0x1L);
                assertEquals(0, ops.nativeAmo(p.a, operands, 0, result, 0, p.addrBFromA, 0, mr.key(),
                    GniOps.GNIX_FAB_RQ_NAMO_FAX, 2));
                final io.jfabric.CompletionEntry fax = one(p.cqA);
                assertEquals(2, fax.context());
                assertEquals(Flags.ATOMIC | Flags.READ, fax.flags() & (Flags.ATOMIC | Flags.READ | Flags.WRITE));
                assertEquals(0xF00FL, result.getLong(0));
                assertEquals(0x00EL, target.getLong(0));
                // The 32-bit forms change the low word only.
                operands.putInt(0, 0xFFFF_0000);
                operands.putInt(4, 0x5);
                result.putLong(0, 0);
                assertEquals(0, ops.nativeAmo(p.a, operands, 0, result, 0, p.addrBFromA, 8, mr.key(),
                    GniOps.GNIX_FAB_RQ_NAMO_FAX_S, 3));
                assertEquals(3, one(p.cqA).context());
                assertEquals(0x2222_2222, result.getInt(0));
                assertEquals(0x1111_1111_2222_0005L, target.getLong(8));
                operands.putInt(0, 0x0000_FFFF);
                operands.putInt(4, 0x7000_0000);
                assertEquals(0, ops.nativeAmo(p.a, operands, 0, null, 0, p.addrBFromA, 8, mr.key(),
                    GniOps.GNIX_FAB_RQ_NAMO_AX_S, 4));
                assertEquals(4, one(p.cqA).context());
                assertEquals(0x1111_1111_7000_0005L, target.getLong(8));
                // A plain MSWAP keeps its mask meaning.
                operands.putLong(0, 0xFFL);
                operands.putLong(8, 0xABL);
                assertEquals(0, p.a.compareAtomic(operands, 8, 1, operands, 0, result, 0, p.addrBFromA, 0, mr.key(),
                    io.jfabric.AtomicDatatype.UINT64, io.jfabric.AtomicOp.MSWAP, 5));
                assertEquals(5, one(p.cqA).context());
                assertEquals(0x0ABL, target.getLong(0));

                assertEquals(Errno.EINVAL.negated(), ops.nativeAmo(p.a, operands, 0, result, 0, p.addrBFromA, 0,
                    mr.key(), 0x24, 6));
                assertEquals(Errno.EINVAL.negated(), ops.nativeAmo(p.a, operands, 0, null, 0, p.addrBFromA, 0,
                    mr.key(), GniOps.GNIX_FAB_RQ_NAMO_FAX, 7));
                // Misaligned target: an error completion, as for any atomic.
                assertEquals(0, ops.nativeAmo(p.a, operands, 0, result, 0, p.addrBFromA, 4, mr.key(),
                    GniOps.GNIX_FAB_RQ_NAMO_FAX, 8));
                final io.jfabric.CompletionErrorEntry misaligned = Pair.error(p.cqA);
                assertEquals(8, misaligned.context());
                assertEquals(Errno.EINVAL.value(), misaligned.err());
            }
        }
    }

    @Test
    void shouldReadAndWriteTheFabricOptionsUnderBothNames()
    {
        try (Fabric fabric = Fabric.open(info(MrMode.MMU_NOTIFY, Progress.AUTO, null, CAPS)))
        {
            final OpenOps fab = fabric.openOps(GniOps.FI_GNI_FAB_OPS_1);
            final OpenOps fabric1 = fabric.openOps(GniOps.FI_GNI_FABRIC_OPS_1);
            assertEquals("fab ops 1", fab.name());
            assertEquals(20, fab.get(GniOps.GNI_WAIT_THREAD_SLEEP));
            assertEquals(192, fab.get(GniOps.GNI_DEFAULT_USER_REGISTRATION_LIMIT));
            assertEquals(64, fab.get(GniOps.GNI_DEFAULT_PROV_REGISTRATION_LIMIT));
            assertEquals(30, fab.get(GniOps.GNI_WAIT_SHARED_MEMORY_TIMEOUT));
            assertEquals(OpsType.UINT32, fab.type(GniOps.GNI_WAIT_THREAD_SLEEP));
            fab.set(GniOps.GNI_WAIT_THREAD_SLEEP, 40);
            assertEquals(40, fabric1.get(GniOps.GNI_WAIT_THREAD_SLEEP));
            fab.set(GniOps.GNI_WAIT_THREAD_SLEEP, 20);
            assertEquals(Errno.EINVAL.value(), errno(() -> fab.set(GniOps.GNI_DEFAULT_USER_REGISTRATION_LIMIT, 4097)));
            assertEquals(Errno.EINVAL.value(), errno(() -> fab.set(GniOps.GNI_DEFAULT_PROV_REGISTRATION_LIMIT, 4097)));
            assertEquals(Errno.EINVAL.value(), errno(() -> fab.get(4)));
            assertEquals(Errno.EINVAL.value(), errno(() -> fab.set(4, 1)));
            assertEquals(192, fab.get(GniOps.GNI_DEFAULT_USER_REGISTRATION_LIMIT));
            assertEquals(Errno.ENOSYS.value(), errno(() -> fabric.openOps("fab ops 3")));
            assertEquals("fabric ops 2", fabric.openOps(GniOps.FI_GNI_FABRIC_OPS_2).name());
        }
    }

    @Test
    void shouldSetAuthKeyLimitsOnlyBeforeTheKeyIsUsed()
    {
        final int cookie = 0x7a01_0001;
        final byte[] key = authKey(cookie);
        final Info info = info(MrMode.MMU_NOTIFY, Progress.AUTO, key, CAPS);
        try (Fabric fabric = Fabric.open(info))
        {
            final GniAuthKeyOps ops = fabric.openOps(GniOps.FI_GNI_FAB_OPS_2).as(GniAuthKeyOps.class);
            assertEquals(192, ops.get(key, GniOps.GNIX_USER_KEY_LIMIT));
            assertEquals(64, ops.get(key, GniOps.GNIX_PROV_KEY_LIMIT));
            ops.set(key, GniOps.GNIX_USER_KEY_LIMIT, 100);
            ops.set(key, GniOps.GNIX_PROV_KEY_LIMIT, 10);
            assertEquals(100, ops.get(key, GniOps.GNIX_USER_KEY_LIMIT));
            assertEquals(110, ops.get(key, GniOps.GNIX_TOTAL_KEYS_NEEDED));
            assertEquals(100, ops.get(key, GniOps.GNIX_USER_KEY_MAX_PER_RANK));
            assertEquals(Errno.EINVAL.value(), errno(() -> ops.set(key, GniOps.GNIX_USER_KEY_LIMIT, 4096)));
            assertEquals(Errno.EOPNOTSUPP.value(), errno(() -> ops.set(key, GniOps.GNIX_TOTAL_KEYS_NEEDED, 1)));
            assertEquals(Errno.EOPNOTSUPP.value(), errno(() -> ops.set(key, GniOps.GNIX_USER_KEY_MAX_PER_RANK, 1)));
            assertEquals(Errno.EINVAL.value(), errno(() -> ops.set(new byte[3], GniOps.GNIX_USER_KEY_LIMIT, 1)));
            assertEquals(Errno.EINVAL.value(), errno(() -> ops.get(key, 4)));

            try (io.jfabric.Domain domain = fabric.domain(info))
            {
                // First use enabled the key: its limits are frozen.
                assertEquals(Errno.EAGAIN.value(), errno(() -> ops.set(key, GniOps.GNIX_USER_KEY_LIMIT, 50)));
                assertEquals(100, ops.get(key, GniOps.GNIX_USER_KEY_LIMIT));
                final UnsafeBuffer page = direct(4096);
                assertEquals(Errno.EKEYREJECTED.value(),
                    errno(() -> domain.registerMemory(page, 0, 4096, Flags.REMOTE_READ, 100)));
                try (MemoryRegion mr = domain.registerMemory(page, 0, 4096, Flags.REMOTE_READ, 99))
                {
                    assertEquals(99, mr.key());
                    assertEquals(Errno.ENOKEY.value(),
                        errno(() -> domain.registerMemory(page, 0, 4096, Flags.REMOTE_READ, 99)));
                }
                // Closed: the key may be requested again.
                domain.registerMemory(page, 0, 4096, Flags.REMOTE_READ, 99).close();
            }
            assertEquals(Errno.EAGAIN.value(), errno(() -> ops.set(key, GniOps.GNIX_USER_KEY_LIMIT, 50)));
        }
    }
}
