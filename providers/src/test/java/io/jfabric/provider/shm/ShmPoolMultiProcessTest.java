package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static io.jfabric.provider.shm.ShmTests.assertPattern;
import static io.jfabric.provider.shm.ShmTests.direct;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Single-copy rendezvous from the shared pool across real processes (a child JVM, {@link ShmChild}): both directions
 * with data verified, plain buffers still chunked, and a killed sender's pool never read again.
 */
@Timeout(120)
class ShmPoolMultiProcessTest
{
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-poolmp-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        ShmTests.deleteTree(dir);
    }

    private static long[] numbers(final String answer, final String word, final int count)
    {
        assertTrue(answer.startsWith(word + " "), answer);
        final String[] parts = answer.split(" ");
        assertEquals(count + 1, parts.length, answer);
        final long[] values = new long[count];
        for (int i = 0; i < count; i++)
        {
            values[i] = Long.parseLong(parts[i + 1]);
        }
        return values;
    }

    @Test
    void shouldCopyPoolSendsOnceAcrossProcessesInBothDirectionsAndChunkPlainOnes() throws Exception
    {
        final Info info = ShmTests.info(Progress.MANUAL, "p-pool");
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 4);
            CompletionQueue cq = domain.completionQueue(1024, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
            ShmChildProcess child = ShmChildProcess.start(dir, "c-pool", Progress.MANUAL, domain))
        {
            final long peer = av.insert(child.address.getBytes(StandardCharsets.US_ASCII));
            assertNotEquals(AddressVector.ADDR_NOTAVAIL, peer);
            final String inserted = child.call("insert " + new String(ep.name(), StandardCharsets.US_ASCII), domain);
            assertTrue(inserted.startsWith("FIADDR "), inserted);
            final long childToUs = Long.parseLong(inserted.substring("FIADDR ".length()));
            final ShmDomainTransport transport = ShmTests.transport(domain);

            // Child -> us from the child's pool: one direct read here, no data frames.
            int tag = 1;
            for (final int size : new int[]{(1 << 20) + 3, 8 << 20})
            {
                final long reads = transport.directReads();
                final long frames = ShmTests.agent(domain).dataFrames();
                final UnsafeBuffer in = direct(size);
                final int t = tag++;
                post(() -> ep.trecv(in, 0, size, peer, t, 0, 10), domain);
                child.call("poolsend " + childToUs + " " + size + " " + t + " " + size, domain);
                final CompletionEntry received = one(cq, domain);
                assertEquals(10, received.context());
                assertEquals(size, received.len());
                assertPattern(in, 0, size, size);
                assertEquals(reads + 1, transport.directReads(), "direct read of the child's pool, size " + size);
                assertEquals(frames, ShmTests.agent(domain).dataFrames(), "no RDATA chunk, size " + size);
            }

            // Us -> child from our pool, then from a plain buffer: the child reports its CRC and counters.
            long childReads = 0;
            long childFrames = 0;
            for (final boolean fromPool : new boolean[]{true, false, true})
            {
                final int size = (1 << 20) + 3;
                final int t = tag++;
                final AtomicBuffer block = fromPool ? domain.allocateShared(size) : null;
                final UnsafeBuffer out = fromPool ? new UnsafeBuffer(block.addressOffset(), size) : direct(size);
                ShmTests.fill(out, 0, size, t);
                child.send("recvcrc " + size + " " + t);
                post(() -> ep.tsend(out, 0, size, peer, t, 20), domain);
                assertEquals(20, one(cq, domain).context());
                final long[] answer = numbers(child.await(domain), "RECEIVED", 4);
                assertEquals(size, answer[0]);
                assertEquals(ShmTests.crc(out, 0, size), answer[1], "data at the child");
                if (fromPool)
                {
                    assertEquals(childReads + 1, answer[2], "the child read our pool directly");
                    assertEquals(childFrames, answer[3], "no RDATA chunk to the child");
                    domain.freeShared(block);
                }
                else
                {
                    assertEquals(childReads, answer[2], "a plain buffer is never read directly");
                    assertTrue(answer[3] > childFrames, "a plain buffer moves in RDATA chunks");
                }
                childReads = answer[2];
                childFrames = answer[3];
            }
            assertEquals("BYE", child.call("exit", domain));
        }
    }

    @Test
    void shouldNeverReadAKilledSendersPoolAgain() throws Exception
    {
        final Info info = ShmTests.info(Progress.MANUAL, "p-poolkill");
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 4);
            CompletionQueue cq = domain.completionQueue(1024, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
            ShmChildProcess child = ShmChildProcess.start(dir, "c-poolkill", Progress.MANUAL, domain))
        {
            final long peer = av.insert(child.address.getBytes(StandardCharsets.US_ASCII));
            final String inserted = child.call("insert " + new String(ep.name(), StandardCharsets.US_ASCII), domain);
            final long childToUs = Long.parseLong(inserted.substring("FIADDR ".length()));
            final ShmDomainTransport transport = ShmTests.transport(domain);
            final int size = 256 << 10;
            final UnsafeBuffer in = direct(size);
            post(() -> ep.trecv(in, 0, size, peer, 1, 0, 10), domain);
            final long[] sent = numbers(child.call("poolsend " + childToUs + " " + size + " 1 9 keep", domain),
                "POOLSENT", 3);
            assertEquals(10, one(cq, domain).context());
            assertPattern(in, 0, size, 9);
            final long key = transport.resolve(child.address.getBytes(StandardCharsets.US_ASCII));
            final long block = sent[2];
            assertNotEquals(0, transport.directAddress(key, block, size), "readable while the child lives");

            child.kill();
            final long deadline = System.nanoTime() + ShmTests.DEADLINE_NS;
            while (!"DEAD".equals(transport.peerState("c-poolkill")))
            {
                if (System.nanoTime() - deadline > 0)
                {
                    fail("the killed child was not declared dead");
                }
                ShmTests.progress(domain);
            }
            assertEquals(0, transport.directAddress(key, block, size), "a dead peer's pool is never read");
        }
    }
}
