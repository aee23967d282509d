package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.OpenOps;
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

/**
 * {@code GNI_ERR_INJECT_COUNT} (domain ops, GNI.md §2.3): with the count set, each transfer fails its first
 * {@code count} transmissions without reaching the NIC (upstream's injected-error list) and the retransmit path posts
 * it again; within {@code GNI_MAX_RETRANSMITS} it completes with its data, beyond it the operation fails with the
 * transport-failure completion ({@code err = FI_ECANCELED}, {@code prov_errno = -FI_ECANCELED}). An eager SMSG is
 * failed only when {@code GNI_MAX_RETRANSMITS <= count}, and is never retransmitted.
 */
@Timeout(60)
class GniErrInjectTest
{
    @Test
    void shouldRetransmitInjectedFailuresAndCompleteWithinMaxRetransmits()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.AUTO))
        {
            final OpenOps opsA = p.domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096, Flags.REMOTE_WRITE, 5))
            {
                opsA.set(GniOps.GNI_ERR_INJECT_COUNT, 2);
                final long fma = opsA.get(GniOps.GNI_STAT_FMA_POSTS);
                assertEquals(0, p.a.write(pattern(512, 6), 0, 512, p.addrBFromA, 0, mr.key(), 1));
                assertEquals(1, one(p.cqA).context());
                assertPattern(target, 0, 512, 6);
                // Two injected failures never reached the NIC; the third transmission did.
                assertEquals(fma + 1, opsA.get(GniOps.GNI_STAT_FMA_POSTS));

                // A rendezvous GET at the receiver, injected there twice: the message arrives whole.
                final OpenOps opsB = p.domainB.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
                opsA.set(GniOps.GNI_ERR_INJECT_COUNT, 0);
                opsB.set(GniOps.GNI_ERR_INJECT_COUNT, 2);
                final long bte = opsB.get(GniOps.GNI_STAT_BTE_POSTS);
                final UnsafeBuffer rx = direct(100_000);
                assertEquals(0, p.b.trecv(rx, 0, 100_000, AddressVector.ADDR_UNSPEC, 7, 0, 2));
                assertEquals(0, p.a.tsend(pattern(100_000, 7), 0, 100_000, p.addrBFromA, 7, 3));
                assertEquals(3, one(p.cqA).context());
                assertEquals(2, one(p.cqB).context());
                assertPattern(rx, 0, 100_000, 7);
                assertEquals(bte + 1, opsB.get(GniOps.GNI_STAT_BTE_POSTS));
            }
        }
    }

    @Test
    void shouldFailWithTransportFailureFieldsWhenInjectedBeyondMaxRetransmits()
    {
        try (Pair p = GniOpsTest.pair(MrMode.MMU_NOTIFY, Progress.AUTO))
        {
            final OpenOps opsA = p.domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096, Flags.REMOTE_WRITE, 5))
            {
                // 1 + GNI_MAX_RETRANSMITS (5) transmissions, every one injected: the write fails.
                opsA.set(GniOps.GNI_ERR_INJECT_COUNT, 6);
                opsA.set(GniOps.GNI_MAX_RETRANSMITS, 5);
                final long fma = opsA.get(GniOps.GNI_STAT_FMA_POSTS);
                assertEquals(0, p.a.write(pattern(512, 6), 0, 512, p.addrBFromA, 0, mr.key(), 1));
                CompletionErrorEntry e = error(p.cqA);
                assertEquals(1, e.context());
                assertEquals(Errno.ECANCELED, e.errno());
                assertEquals(Errno.ECANCELED.negated(), e.provErrno());
                assertEquals(Flags.RMA | Flags.WRITE, e.flags());
                assertEquals(0, e.len());
                assertEquals(fma, opsA.get(GniOps.GNI_STAT_FMA_POSTS), "no transmission reached the NIC");
                assertEquals(0, target.getByte(0));

                // GNI_MAX_RETRANSMITS 0: a single injected failure fails it.
                opsA.set(GniOps.GNI_ERR_INJECT_COUNT, 1);
                opsA.set(GniOps.GNI_MAX_RETRANSMITS, 0);
                assertEquals(0, p.a.write(pattern(512, 6), 0, 512, p.addrBFromA, 0, mr.key(), 2));
                e = error(p.cqA);
                assertEquals(2, e.context());
                assertEquals(Errno.ECANCELED, e.errno());
                assertEquals(Errno.ECANCELED.negated(), e.provErrno());

                // GNI_MAX_RETRANSMITS <= count: an eager send fails too (an SMSG is never retransmitted).
                final UnsafeBuffer rx = direct(64);
                assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 9));
                assertEquals(0, p.a.send(pattern(64, 8), 0, 64, p.addrBFromA, 3));
                e = error(p.cqA);
                assertEquals(3, e.context());
                assertEquals(Errno.ECANCELED, e.errno());
                assertEquals(Errno.ECANCELED.negated(), e.provErrno());
                assertEquals(Flags.MSG | Flags.SEND, e.flags());

                // Off again: everything goes.
                opsA.set(GniOps.GNI_ERR_INJECT_COUNT, 0);
                assertEquals(0, p.a.send(pattern(64, 8), 0, 64, p.addrBFromA, 4));
                assertEquals(4, one(p.cqA).context());
                assertEquals(9, one(p.cqB).context());
                assertPattern(rx, 0, 64, 8);
            }
        }
    }
}
