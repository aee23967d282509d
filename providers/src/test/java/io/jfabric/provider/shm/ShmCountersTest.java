package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.Errno;
import io.jfabric.Progress;
import io.jfabric.stat.DomainCounters;
import io.jfabric.stat.StatReader;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static io.jfabric.provider.shm.ShmTests.error;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The runtime's per-domain counters and shm's own ({@code shm ring-full retries}, {@code shm peers seen dead}) after
 * a known exchange over shm and a peer's close, read through the process's counters file.
 */
@Timeout(120)
class ShmCountersTest
{
    private static final int MESSAGES = 100;
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-counters-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        ShmTests.deleteTree(dir);
    }

    @Test
    void shouldCountFramesOverShmAndThePeerThatClosed()
    {
        final ShmPair p = new ShmPair(Progress.MANUAL, "-counters");
        try
        {
            final DomainCounters a = p.domainA.counters();
            final DomainCounters b = p.domainB.counters();
            final long outA = a.value(DomainCounters.TYPE_FRAMES_OUT);
            final long inB = b.value(DomainCounters.TYPE_FRAMES_IN);
            final long creditsOutB = b.value(DomainCounters.TYPE_FRAMES_OUT);
            final long creditsInA = a.value(DomainCounters.TYPE_FRAMES_IN);
            final UnsafeBuffer tx = ShmTests.pattern(64, 3);
            final UnsafeBuffer rx = ShmTests.direct(64);
            for (int i = 0; i < MESSAGES; i++)
            {
                final int tag = i;
                post(() -> p.b.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, tag, 0, 100 + tag), p.domains());
                post(() -> p.a.tsend(tx, 0, 64, p.addrBFromA, tag, 200 + tag), p.domains());
                assertEquals(200 + i, one(p.cqA, p.domains()).context());
                assertEquals(100 + i, one(p.cqB, p.domains()).context());
            }
            for (int i = 0; i < 2 * DomainCounters.SAMPLE_CYCLES; i++)
            {
                ShmTests.progress(p.domains());
            }
            assertEquals(MESSAGES, a.value(DomainCounters.TYPE_FRAMES_OUT) - outA);
            assertEquals(MESSAGES, b.value(DomainCounters.TYPE_FRAMES_IN) - inB);
            assertEquals(b.value(DomainCounters.TYPE_FRAMES_OUT) - creditsOutB,
                a.value(DomainCounters.TYPE_FRAMES_IN) - creditsInA);
            assertEquals(0, a.value(DomainCounters.TYPE_BACK_PRESSURE));
            assertEquals(0, a.value(DomainCounters.TYPE_PEER_FAILURES));
            assertEquals(0, a.value(DomainCounters.TYPE_ERRORS));
            assertEquals(0, b.value(DomainCounters.TYPE_UNEXPECTED_DEPTH));
            final Map<String, Long> before = shmCounters(a);
            assertEquals(0L, before.get("shm ring-full retries"));
            assertEquals(0L, before.get("shm peers seen dead"));

            p.closeB();
            // A learns of the close at its next liveness scan (driven by its duty cycles); until then a send may
            // still land in b's mapped ring. Then every send fails at once.
            final long deadline = System.nanoTime() + ShmTests.DEADLINE_NS;
            while (0 == shmCounters(a).get("shm peers seen dead"))
            {
                if (System.nanoTime() - deadline > 0)
                {
                    fail("a did not see b's close");
                }
                ShmTests.progress(p.domainA);
            }
            final UnsafeBuffer small = ShmTests.pattern(48, 9);
            post(() -> p.a.tsend(small, 0, 48, p.addrBFromA, 1, 1), p.domainA);
            assertEquals(Errno.EIO, error(p.cqA, p.domainA).errno(), "nobody owns the name");
            final Map<String, Long> after = shmCounters(a);
            assertEquals(1, a.value(DomainCounters.TYPE_PEER_FAILURES), after.toString());
            assertEquals(1L, after.get("shm peers seen dead"));
            assertEquals(0L, after.get("shm ring-full retries"));
            assertEquals(MESSAGES, a.value(DomainCounters.TYPE_FRAMES_OUT) - outA);
        }
        finally
        {
            p.close();
        }
    }

    /**
     * The shm counters of a domain, by name, as the process's counters file shows them.
     */
    private static Map<String, Long> shmCounters(final DomainCounters counters)
    {
        final Path file = counters.file().path();
        assertNotNull(file, "the counters directory must be usable for this test");
        final String suffix = " id=" + counters.domainId();
        final Map<String, Long> values = new HashMap<>();
        try (StatReader reader = StatReader.open(file))
        {
            reader.forEachCounter((id, type, value, label) ->
            {
                if (DomainCounters.TYPE_TRANSPORT == type && label.endsWith(suffix))
                {
                    values.put(label.substring(0, label.indexOf(':')), value);
                }
            });
        }
        return values;
    }
}
