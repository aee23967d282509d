package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CqFormat;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The provider registration limit of an authorization key in scalable mode ({@code GNIX_PROV_KEY_LIMIT}, fi_gni(7)),
 * enforced ({@link GniProviderRegistrations}): set before the key's first use (EAGAIN after), every provider
 * registration of an operation (an RMA's local buffer, a rendezvous source) takes one until the operation completes;
 * with none at all such operations fail with {@code FI_ENOKEY} while those that register nothing (eager sends, atomics)
 * go; with one, many writes posted at once wait for each other and all complete with their data.
 */
@Timeout(60)
class GniProviderRegistrationLimitTest
{
    private static final long CAPS = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC;

    private static Pair pair(final int cookie, final long provLimit)
    {
        GniAuthKeys.limit(cookie, GniOps.GNIX_PROV_KEY_LIMIT, provLimit);
        final Info info = GniOpsTest.info(MrMode.MMU_NOTIFY, Progress.AUTO, GniOpsTest.authKey(cookie), CAPS);
        final Pair p = new Pair(info, info, 0, CqFormat.TAGGED, 256);
        assertEquals(Errno.EAGAIN, assertThrows(FabricException.class,
            () -> GniAuthKeys.limit(cookie, GniOps.GNIX_PROV_KEY_LIMIT, 64)).errno(), "frozen at first use");
        assertEquals(provLimit, GniAuthKeys.limit(cookie, GniOps.GNIX_PROV_KEY_LIMIT));
        return p;
    }

    @Test
    void shouldFailOperationsThatNeedAProviderRegistrationWithEnokeyWhenTheLimitIsZero()
    {
        try (Pair p = pair(0x5a5a_d150, 0))
        {
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_WRITE | Flags.REMOTE_READ, 3))
            {
                assertEquals(0, p.a.write(pattern(64, 1), 0, 64, p.addrBFromA, 0, mr.key(), 1));
                CompletionErrorEntry e = error(p.cqA);
                assertEquals(1, e.context());
                assertEquals(Errno.ENOKEY, e.errno());
                assertEquals(Flags.RMA | Flags.WRITE, e.flags());
                assertEquals(0, target.getByte(0));

                final UnsafeBuffer rx = direct(100_000);
                assertEquals(0, p.b.trecv(rx, 0, 100_000, AddressVector.ADDR_UNSPEC, 5, 0, 2));
                assertEquals(0, p.a.tsend(pattern(100_000, 2), 0, 100_000, p.addrBFromA, 5, 3));
                e = error(p.cqA);
                assertEquals(3, e.context());
                assertEquals(Errno.ENOKEY, e.errno());
                assertEquals(Flags.TAGGED | Flags.SEND, e.flags());

                // Nothing to register: an eager send and an atomic go.
                assertEquals(0, p.a.tsend(pattern(64, 4), 0, 64, p.addrBFromA, 5, 4));
                assertEquals(4, one(p.cqA).context());
                assertEquals(2, one(p.cqB).context());
                assertPattern(rx, 0, 64, 4);
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 7);
                assertEquals(0, p.a.atomic(operand, 0, 1, p.addrBFromA, 8, mr.key(), AtomicDatatype.INT64,
                    AtomicOp.SUM, 5));
                assertEquals(5, one(p.cqA).context());
                assertEquals(7, target.getLong(8));
            }
        }
    }

    @Test
    void shouldQueueRmaBehindOneProviderRegistrationAndCompleteEveryWrite()
    {
        try (Pair p = pair(0x5a5a_d151, 1))
        {
            final int writes = 16;
            final UnsafeBuffer target = direct(writes * 512);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, writes * 512, Flags.REMOTE_WRITE, 3))
            {
                for (int i = 0; i < writes; i++)
                {
                    assertEquals(0, p.a.write(pattern(512, 10 + i), 0, 512, p.addrBFromA, i * 512L, mr.key(), i));
                }
                for (int i = 0; i < writes; i++)
                {
                    assertEquals(i, one(p.cqA).context(), "writes complete in posting order");
                }
                for (int i = 0; i < writes; i++)
                {
                    assertPattern(target, i * 512, 512, 10 + i);
                }
            }
        }
    }
}
