package io.jfabric.provider.gni;

import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.MrAttr;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.provider.gni.GniOpsTest.authKey;
import static io.jfabric.provider.gni.GniOpsTest.errno;
import static io.jfabric.provider.gni.GniOpsTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * gni's registration rules (GNI.md §2.8, §5.6-1): 4 KiB alignment of regv/regattr in both modes and of every
 * scalable registration, requested keys in scalable mode, one MR mode per authorization key, at most 4 keys in
 * scalable mode and 4096 scalable registrations on a node (here: the process).
 */
class GniRegistrationTest
{
    private static final long BASIC = MrMode.VIRT_ADDR | MrMode.ALLOCATED | MrMode.PROV_KEY;
    private static final long CAPS = Flags.MSG | Flags.RMA;

    @Test
    void shouldTakeUnalignedPlainRegistrationsOnlyInBasicMode()
    {
        final UnsafeBuffer pages = direct(3 * 4096);
        final UnsafeBuffer unaligned = new UnsafeBuffer(pages, 8, 4096);
        final UnsafeBuffer aligned = new UnsafeBuffer(pages, 4096, 4096);
        final Info basic = info(BASIC, Progress.AUTO, authKey(0x7a02_0001), CAPS);
        try (Fabric fabric = Fabric.open(basic); Domain domain = fabric.domain(basic))
        {
            try (MemoryRegion mr = domain.registerMemory(pages, 8, 100, Flags.REMOTE_READ, 0))
            {
                assertEquals(100, mr.length());
            }
            assertEquals(Errno.EINVAL.value(), errno(() -> domain.registerMemory(
                new DirectBuffer[]{unaligned}, 1, Flags.REMOTE_READ, 0)));
            assertEquals(Errno.EINVAL.value(), errno(() -> domain.registerMemory(
                MrAttr.builder().iov(unaligned).access(Flags.REMOTE_READ).build(), 0)));
            domain.registerMemory(new DirectBuffer[]{aligned}, 1, Flags.REMOTE_READ, 0).close();
            domain.registerMemory(MrAttr.builder().iov(aligned).access(Flags.REMOTE_READ).build(), 0).close();
        }
        final Info scalable = info(MrMode.MMU_NOTIFY, Progress.AUTO, authKey(0x7a03_0001), CAPS);
        try (Fabric fabric = Fabric.open(scalable); Domain domain = fabric.domain(scalable))
        {
            assertEquals(Errno.EINVAL.value(), errno(() -> domain.registerMemory(pages, 8, 100, Flags.REMOTE_READ, 1)));
            assertEquals(Errno.EINVAL.value(), errno(() -> domain.registerMemory(
                new DirectBuffer[]{unaligned}, 1, Flags.REMOTE_READ, 2)));
            try (MemoryRegion mr = domain.registerMemory(pages, 4096, 100, Flags.REMOTE_READ, 3))
            {
                // Scalable: the key is the requested key.
                assertEquals(3, mr.key());
            }
            try (MemoryRegion mr = domain.registerMemory(MrAttr.builder().iov(aligned).access(Flags.REMOTE_READ)
                .requestedKey(191).build(), 0))
            {
                assertEquals(191, mr.key());
            }
            assertEquals(Errno.EKEYREJECTED.value(), errno(() -> domain.registerMemory(pages, 0, 8,
                Flags.REMOTE_READ, 192)));
        }
    }

    @Test
    void shouldKeepOneMrModePerAuthKey()
    {
        final byte[] key = authKey(0x7a04_0001);
        final Info basic = info(BASIC, Progress.AUTO, key, CAPS);
        final Info scalable = info(MrMode.MMU_NOTIFY, Progress.AUTO, key, CAPS);
        try (Fabric fabric = Fabric.open(basic); Domain first = fabric.domain(basic))
        {
            assertEquals(Errno.EINVAL.value(), errno(() -> fabric.domain(scalable)));
            fabric.domain(basic).close();
            first.close();
            // No domain uses the key any more: the other mode may take it.
            fabric.domain(scalable).close();
        }
    }

    @Test
    void shouldRefuseAFifthScalableKeyAndThe4097thScalableRegistration()
    {
        final List<AutoCloseable> open = new ArrayList<>();
        final Info first = info(MrMode.MMU_NOTIFY, Progress.AUTO, authKey(0x7a10_0001), CAPS);
        try (Fabric fabric = Fabric.open(first))
        {
            final GniAuthKeyOps keys = fabric.openOps(GniOps.FI_GNI_FAB_OPS_2).as(GniAuthKeyOps.class);
            keys.set(authKey(0x7a10_0001), GniOps.GNIX_USER_KEY_LIMIT, 4095);
            keys.set(authKey(0x7a10_0002), GniOps.GNIX_USER_KEY_LIMIT, 4095);
            final Domain[] domains = new Domain[4];
            for (int i = 0; i < 4; i++)
            {
                domains[i] = fabric.domain(info(MrMode.MMU_NOTIFY, Progress.AUTO, authKey(0x7a10_0001 + i), CAPS));
                open.add(domains[i]);
            }
            final Info fifth = info(MrMode.MMU_NOTIFY, Progress.AUTO, authKey(0x7a10_0005), CAPS);
            assertEquals(Errno.ENOSPC.value(), errno(() -> fabric.domain(fifth)));
            // Basic mode takes no scalable slot.
            fabric.domain(info(BASIC, Progress.AUTO, authKey(0x7a10_0006), CAPS)).close();

            final UnsafeBuffer page = direct(4096);
            final List<MemoryRegion> regions = new ArrayList<>();
            for (int k = 0; k < 4095; k++)
            {
                regions.add(domains[0].registerMemory(page, 0, 4096, Flags.REMOTE_READ, k));
            }
            regions.add(domains[1].registerMemory(page, 0, 4096, Flags.REMOTE_READ, 0));
            assertEquals(Errno.ENOSPC.value(),
                errno(() -> domains[1].registerMemory(page, 0, 4096, Flags.REMOTE_READ, 1)));
            regions.remove(0).close();
            // A key the domain's registry refuses (in use) gives its place back.
            assertEquals(Errno.ENOKEY.value(), errno(() -> domains[0].registerMemory(page, 0, 4096,
                Flags.REMOTE_READ, 1)));
            regions.add(domains[1].registerMemory(page, 0, 4096, Flags.REMOTE_READ, 1));
            assertEquals(Errno.ENOSPC.value(),
                errno(() -> domains[1].registerMemory(page, 0, 4096, Flags.REMOTE_READ, 2)));
            for (final MemoryRegion r : regions)
            {
                r.close();
            }
            domains[1].registerMemory(page, 0, 4096, Flags.REMOTE_READ, 2).close();
            for (int i = 3; i >= 0; i--)
            {
                domains[i].close();
                open.remove(domains[i]);
            }
            fabric.domain(fifth).close();
        }
        finally
        {
            for (final AutoCloseable c : open)
            {
                try
                {
                    c.close();
                }
                catch (final Exception ignored)
                {
                    // The assertion that failed matters more.
                }
            }
        }
    }
}
