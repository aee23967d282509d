package io.jfabric.opbackend;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.CqFormat;
import io.jfabric.DomainAttr;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The operation level itself: what the conformance suite shows over {@code oploop} is done by its
 * {@link io.jfabric.spi.OperationBackend} (each operation one request to the peer's back-end, no frame offered
 * through the transport), and the back-end's view of a command is the command the application posted.
 */
class OpLoopbackBackendTest
{
    private static Pair pair(final Progress progress)
    {
        final Info info = LoopbackOperationProvider.info(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC)
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build());
        assertEquals(LoopbackOperationProvider.NAME, info.fabricAttr().provName());
        return new Pair(info, info, 0, CqFormat.TAGGED, 64);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldCarryEveryOperationAsOneBackendRequestAndNoFrame(final Progress progress)
    {
        final long framesBefore = LoopbackOperationTransport.FRAMES_OFFERED.get();
        try (Pair p = pair(progress))
        {
            final long before = LoopbackOperationTransport.REQUESTS.get();
            final UnsafeBuffer rx = direct(1000);
            assertEquals(0, p.b.trecv(rx, 0, 1000, p.addrAFromB, 42, 0, 7));
            assertEquals(0, p.a.tsend(pattern(1000, 3), 0, 1000, p.addrBFromA, 42, 9));
            final CompletionEntry received = one(p.cqB);
            assertEquals(7, received.context());
            assertEquals(Flags.TAGGED | Flags.RECV, received.flags());
            assertEquals(1000, received.len());
            assertEquals(42, received.tag());
            assertPattern(rx, 0, 1000, 3);
            final CompletionEntry sent = one(p.cqA);
            assertEquals(9, sent.context());
            assertEquals(Flags.TAGGED | Flags.SEND, sent.flags());
            assertEquals(before + 1, LoopbackOperationTransport.REQUESTS.get());

            final int large = 300 * 1024;
            final UnsafeBuffer target = direct(large);
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, large,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 5))
            {
                // Above the loopback's copy limit: the target copies straight from the initiator's buffer.
                assertEquals(0, p.a.write(pattern(large, 11), 0, large, p.addrBFromA, 0, mr.key(), 1));
                assertEquals(Flags.RMA | Flags.WRITE, one(p.cqA).flags());
                assertPattern(target, 0, large, 11);
                final UnsafeBuffer back = direct(large);
                assertEquals(0, p.a.read(back, 0, large, p.addrBFromA, 0, mr.key(), 2));
                final CompletionEntry read = one(p.cqA);
                assertEquals(2, read.context());
                assertEquals(Flags.RMA | Flags.READ, read.flags());
                assertPattern(back, 0, large, 11);

                target.putLong(0, 40);
                final UnsafeBuffer operand = direct(8);
                operand.putLong(0, 2);
                final UnsafeBuffer result = direct(8);
                assertEquals(0, p.a.fetchAtomic(operand, 0, 1, result, 0, p.addrBFromA, 0, mr.key(),
                    AtomicDatatype.INT64, AtomicOp.SUM, 3));
                final CompletionEntry fetched = one(p.cqA);
                assertEquals(Flags.ATOMIC | Flags.READ, fetched.flags());
                assertEquals(40, result.getLong(0));
                assertEquals(42, target.getLong(0));

                // A key the target never registered: refused by the runtime's registry check, memory untouched.
                assertEquals(0, p.a.write(pattern(8, 1), 0, 8, p.addrBFromA, 0, mr.key() + 1000, 4));
                assertSame(Errno.EINVAL, error(p.cqA).errno());
                assertEquals(42, target.getLong(0));
            }
            assertEquals(before + 5, LoopbackOperationTransport.REQUESTS.get());
        }
        assertEquals(framesBefore, LoopbackOperationTransport.FRAMES_OFFERED.get());
    }

    @Test
    void shouldTakeNoFrameTransportPathForAnOperationLevelDomain()
    {
        final long framesBefore = LoopbackOperationTransport.FRAMES_OFFERED.get();
        try (Pair p = pair(Progress.AUTO))
        {
            // Unexpected first, then matched from the unexpected store when the receive is posted.
            final long before = LoopbackOperationTransport.REQUESTS.get();
            assertEquals(0, p.a.send(pattern(64, 5), 0, 64, p.addrBFromA, 1));
            assertEquals(Flags.MSG | Flags.SEND, one(p.cqA).flags());
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.recv(rx, 0, 64, p.addrAFromB, 2));
            final CompletionEntry received = one(p.cqB);
            assertEquals(Flags.MSG | Flags.RECV, received.flags());
            assertEquals(64, received.len());
            assertPattern(rx, 0, 64, 5);
            assertEquals(before + 1, LoopbackOperationTransport.REQUESTS.get());
        }
        assertEquals(framesBefore, LoopbackOperationTransport.FRAMES_OFFERED.get());
    }
}
