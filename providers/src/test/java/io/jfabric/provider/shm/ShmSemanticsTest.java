package io.jfabric.provider.shm;

import io.jfabric.CompletionEntry;
import io.jfabric.Domain;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.conformance.SemanticsConformance;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static io.jfabric.provider.shm.ShmTests.assertPattern;
import static io.jfabric.provider.shm.ShmTests.crc;
import static io.jfabric.provider.shm.ShmTests.direct;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.pattern;
import static io.jfabric.provider.shm.ShmTests.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 10 §4 on shm: {@link SemanticsConformance} run over shm (FI_INJECT forms, delivery-complete answers in the
 * target's duty cycle, ECONNREFUSED from a closed endpoint of a live domain, directed receive, removed addresses),
 * and shm's own cases: tsendmsg with FI_INJECT, a target process that stops or exits right after its completion
 * leaves no sender waiting or failing, and the advertised rma_iov_limit works.
 */
@Timeout(120)
class ShmSemanticsTest extends SemanticsConformance
{
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-semantics-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        ShmTests.deleteTree(dir);
    }

    ShmSemanticsTest()
    {
        super(ShmConformance.factory());
    }

    private static String suffix()
    {
        return "-sem-" + NAMES.incrementAndGet();
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldCopyAndCompleteTsendmsgWithInject(final Progress progress)
    {
        try (ShmPair p = new ShmPair(progress, suffix()))
        {
            final UnsafeBuffer tx = pattern(1024, 3);
            post(() -> p.a.tsendmsg(new Message().buffer(tx, 0, 1024).addr(p.addrBFromA).tag(4).context(7),
                Flags.INJECT | Flags.COMPLETION), p.domains());
            tx.setMemory(0, 1024, (byte) 0x5A);
            final UnsafeBuffer rx = direct(1024);
            post(() -> p.b.trecv(rx, 0, 1024, p.addrAFromB, 4, 0, 8), p.domains());
            assertEquals(7, one(p.cqA, p.domains()).context());
            assertEquals(8, one(p.cqB, p.domains()).context());
            assertPattern(rx, 0, 1024, 3);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Ending.class)
    void shouldCompleteDeliveryCompleteSendWhenTheTargetProcessStopsOrExitsAfterItsCompletion(final Ending ending)
        throws Exception
    {
        try (ShmMultiProcessTest.Local local = new ShmMultiProcessTest.Local("p-dc" + suffix(), Progress.MANUAL);
            ShmChildProcess child = ShmChildProcess.start(dir, "c-dc" + suffix(), Progress.MANUAL, local.domain))
        {
            final Domain d = local.domain;
            final long peer = local.insert(child.address);
            assertTrue(child.call("insert " + local.address, d).startsWith("FIADDR"));
            // The child stops driving its domain once its receive has completed.
            assertEquals("PAUSED", child.call("pause", d));
            child.send("recvcrc 64 9");
            final UnsafeBuffer out = pattern(64, 10);
            post(() -> local.ep.tsendmsg(new Message().buffer(out, 0, 64).addr(peer).tag(9).context(3),
                Flags.COMPLETION | Flags.DELIVERY_COMPLETE), d);
            assertTrue(child.await(d).startsWith("RECEIVED 64 " + crc(out, 0, 64)));
            if (Ending.STOPS != ending)
            {
                assertEquals("BYE", child.call(Ending.EXITS == ending ? "exit" : "quit", d));
            }
            final CompletionEntry sent = one(local.cq, d);
            assertEquals(3, sent.context());
            assertEquals(Flags.SEND | Flags.TAGGED, sent.flags());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldWriteAndReadAsManyRemoteRangesAsRmaIovLimitAdvertises(final Progress progress)
    {
        final int limit = (int) ShmTests.info(progress, null).txAttr().rmaIovLimit();
        assertEquals(ShmProvider.RMA_IOV_LIMIT, limit);
        try (ShmPair p = new ShmPair(progress, suffix()))
        {
            for (final int each : new int[]{16, 128 * 1024})
            {
                final int total = each * limit;
                final UnsafeBuffer target = direct(2 * total);
                try (MemoryRegion mr = p.domainB.registerMemory(target, 0, 2 * total,
                    Flags.REMOTE_READ | Flags.REMOTE_WRITE, 30 + each))
                {
                    // Every other range of `each` bytes, last first: the bytes go in order.
                    final long[] addresses = new long[limit];
                    final long[] lengths = new long[limit];
                    final long[] keys = new long[limit];
                    for (int k = 0; k < limit; k++)
                    {
                        addresses[k] = (long) (limit - 1 - k) * 2 * each;
                        lengths[k] = each;
                        keys[k] = mr.key();
                    }
                    final UnsafeBuffer out = pattern(total, each);
                    post(() -> p.a.writemsg(new Message().buffer(out, 0, total).addr(p.addrBFromA)
                        .rmaIov(addresses, lengths, keys, limit).context(1), Flags.COMPLETION), p.domains());
                    assertEquals(1, one(p.cqA, p.domains()).context());
                    for (int k = 0; k < limit; k++)
                    {
                        final UnsafeBuffer expected = new UnsafeBuffer(out, k * each, each);
                        final UnsafeBuffer landed = new UnsafeBuffer(target, (int) addresses[k], each);
                        assertEquals(crc(expected, 0, each), crc(landed, 0, each), "range " + k + " of " + each);
                    }
                    final UnsafeBuffer back = direct(total);
                    post(() -> p.a.readmsg(new Message().buffer(back, 0, total).addr(p.addrBFromA)
                        .rmaIov(addresses, lengths, keys, limit).context(2), Flags.COMPLETION), p.domains());
                    assertEquals(2, one(p.cqA, p.domains()).context());
                    assertPattern(back, 0, total, each);
                }
            }
        }
    }

    /** What the target process does after its completion. */
    enum Ending
    {
        /** Stays alive without progressing. */
        STOPS,
        /** Closes its domain and exits. */
        EXITS,
        /** Exits at once, closing nothing. */
        QUITS
    }
}
