package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static io.jfabric.provider.shm.ShmTests.assertPattern;
import static io.jfabric.provider.shm.ShmTests.direct;
import static io.jfabric.provider.shm.ShmTests.error;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.pattern;
import static io.jfabric.provider.shm.ShmTests.post;
import static io.jfabric.provider.shm.ShmTests.progress;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The runtime hook for dead peers, in one JVM: a peer's ring marked closed (as its death or its close would) turns
 * every operation still waiting on it into an {@code EIO} error completion, new posts fail at once, answers that
 * arrive afterwards are dropped, and the name is reachable again once a new domain owns it.
 */
@Timeout(60)
class ShmPeerFailureTest
{
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-failure-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        final var left = ShmTests.ringFiles(dir);
        ShmTests.deleteTree(dir);
        assertEquals(java.util.List.of(), left, "every ring file is removed on close");
    }

    /**
     * What a peer's death looks like to the survivor's liveness scan, without stopping the peer's agent: its ring
     * marked closed.
     */
    private static void markClosed(final String name)
    {
        try (ShmRingFile file = ShmRingFile.openPeer(dir, name))
        {
            file.markClosed();
        }
    }

    private static void drive(final Domain domain, final int times)
    {
        for (int i = 0; i < times; i++)
        {
            progress(domain);
        }
    }

    @Test
    void shouldFailEveryOperationOutstandingAtAPeerThatGoesAwayWithEio()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-outstanding"))
        {
            final UnsafeBuffer target = direct(4096);
            final MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 3);
            final UnsafeBuffer big = pattern(1 << 20, 1);
            final UnsafeBuffer small = pattern(32, 2);
            final UnsafeBuffer local = direct(32);
            final UnsafeBuffer ops = direct(8);
            final UnsafeBuffer compare = direct(8);
            final UnsafeBuffer result = direct(8);
            final Domain a = p.domainA;
            // Only a progresses: b's agent never runs, so everything stays outstanding in b's ring.
            post(() -> p.a.tsend(big, 0, 1 << 20, p.addrBFromA, 9, 1), a);
            post(() -> p.a.tsendmsg(new Message().buffer(small, 0, 32).addr(p.addrBFromA).tag(10).context(2),
                Flags.COMPLETION | Flags.DELIVERY_COMPLETE), a);
            post(() -> p.a.write(small, 0, 32, p.addrBFromA, 0, mr.key(), 3), a);
            post(() -> p.a.read(local, 0, 32, p.addrBFromA, 0, mr.key(), 4), a);
            post(() -> p.a.fetchAtomic(ops, 0, 1, result, 0, p.addrBFromA, 64, mr.key(), AtomicDatatype.UINT64,
                AtomicOp.SUM, 5), a);
            post(() -> p.a.compareAtomic(ops, 0, 1, compare, 0, result, 0, p.addrBFromA, 72, mr.key(),
                AtomicDatatype.UINT64, AtomicOp.CSWAP, 6), a);
            drive(a, 200);
            assertEquals(Errno.EAGAIN.negated(), p.cqA.read(new CompletionEntry()), "all six still outstanding");

            markClosed("b-outstanding");
            final Map<Long, CompletionErrorEntry> errors = new HashMap<>();
            for (int i = 0; i < 6; i++)
            {
                final CompletionErrorEntry e = error(p.cqA, a);
                errors.put(e.context(), e);
                assertEquals(Errno.EIO, e.errno(), "context " + e.context());
            }
            assertEquals(Flags.SEND | Flags.TAGGED, errors.get(1L).flags());
            assertEquals(Flags.SEND | Flags.TAGGED, errors.get(2L).flags());
            assertEquals(Flags.RMA | Flags.WRITE, errors.get(3L).flags());
            assertEquals(Flags.RMA | Flags.READ, errors.get(4L).flags());
            assertEquals(Flags.ATOMIC | Flags.READ, errors.get(5L).flags());
            assertEquals(Flags.ATOMIC | Flags.READ, errors.get(6L).flags());
            assertTrue(p.sendCntrA.readErr() >= 2, "send counter errors");

            // New posts to it fail at once.
            post(() -> p.a.tsend(small, 0, 32, p.addrBFromA, 11, 7), a);
            final CompletionErrorEntry fast = error(p.cqA, a);
            assertEquals(7, fast.context());
            assertEquals(Errno.EIO, fast.errno());

            // b wakes up and answers everything: a drops the answers (those operations are finished), no
            // completion appears twice.
            mr.close();
            drive(p.domainB, 200);
            for (int i = 0; i < 200; i++)
            {
                progress(a, p.domainB);
            }
            assertEquals(Errno.EAGAIN.negated(), p.cqA.read(new CompletionEntry()), "no late completion");
        }
    }

    @Test
    void shouldFailAReceiveWhoseRendezvousSenderGoesAwayMidPull()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-pull"))
        {
            final int size = 1 << 20;
            final UnsafeBuffer in = direct(size);
            final UnsafeBuffer out = pattern(size, 5);
            post(() -> p.a.trecv(in, 0, size, AddressVector.ADDR_UNSPEC, 5, 0, 1), p.domainA);
            post(() -> p.b.tsend(out, 0, size, p.addrAFromB, 5, 2), p.domainB);
            drive(p.domainB, 20);
            // a matches the request and asks b for the data; b never answers.
            drive(p.domainA, 200);
            assertEquals(Errno.EAGAIN.negated(), p.cqA.read(new CompletionEntry()));
            markClosed("b-pull");
            final CompletionErrorEntry e = error(p.cqA, p.domainA);
            assertEquals(1, e.context());
            assertEquals(Errno.EIO, e.errno());
            assertEquals(Flags.RECV | Flags.TAGGED, e.flags() & (Flags.RECV | Flags.TAGGED));
            assertEquals(5, e.tag());
        }
    }

    @Test
    void shouldFailStreamedRmaAtATargetThatGoesAwayBeforeAndDuringTheTransfer()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-stream"))
        {
            // Above the transport's frame limit: both directions are streamed in chunks.
            final int size = (4 << 20) + 3;
            final UnsafeBuffer target = direct(size);
            final MemoryRegion mr = p.domainB.registerMemory(target, 0, size,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 4);
            final UnsafeBuffer out = pattern(size, 3);
            final UnsafeBuffer back = direct(size);
            final Domain a = p.domainA;
            // The write: b checks it and asks for the data (CTS); a sends a few chunks, then b stops.
            post(() -> p.a.write(out, 0, size, p.addrBFromA, 0, mr.key(), 1), a);
            drive(a, 5);
            drive(p.domainB, 5);
            drive(a, 3);
            // The read: b never sees the request.
            post(() -> p.a.read(back, 0, size, p.addrBFromA, 0, mr.key(), 2), a);
            drive(a, 20);
            assertEquals(Errno.EAGAIN.negated(), p.cqA.read(new CompletionEntry()), "both still outstanding");

            markClosed("b-stream");
            final Map<Long, CompletionErrorEntry> errors = new HashMap<>();
            for (int i = 0; i < 2; i++)
            {
                final CompletionErrorEntry e = error(p.cqA, a);
                errors.put(e.context(), e);
                assertEquals(Errno.EIO, e.errno(), "context " + e.context());
            }
            assertEquals(Flags.RMA | Flags.WRITE, errors.get(1L).flags());
            assertEquals(Flags.RMA | Flags.READ, errors.get(2L).flags());
            for (int i = 0; i < 200; i++)
            {
                progress(a, p.domainB);
            }
            assertEquals(Errno.EAGAIN.negated(), p.cqA.read(new CompletionEntry()), "no late completion");
            mr.close();
        }
    }

    @Test
    void shouldReleaseAStreamedWriteAtItsTargetWhenTheInitiatorGoesAway()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-initiator"))
        {
            final int size = (4 << 20) + 3;
            final UnsafeBuffer target = direct(size);
            final MemoryRegion mr = p.domainB.registerMemory(target, 0, size,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 5);
            final UnsafeBuffer out = pattern(size, 4);
            // a asks to write; b checks and sends its CTS; a never sends the data.
            post(() -> p.a.write(out, 0, size, p.addrBFromA, 0, mr.key(), 1), p.domainA);
            drive(p.domainA, 5);
            drive(p.domainB, 20);
            markClosed("a-initiator");
            drive(p.domainB, 200);
            assertEquals(Errno.EAGAIN.negated(), p.cqB.read(new CompletionEntry()), "no completion at the target");
            assertEquals(0, p.remoteWriteCntrB.read(), "the write never completed at the target");
            // b still serves its own endpoint: a message to itself goes through.
            final UnsafeBuffer in = direct(16);
            final UnsafeBuffer msg = pattern(16, 8);
            final long self = p.avB.insert(p.b.name());
            post(() -> p.b.trecv(in, 0, 16, AddressVector.ADDR_UNSPEC, 77, 0, 10), p.domainB);
            post(() -> p.b.tsend(msg, 0, 16, self, 77, 11), p.domainB);
            final long first = one(p.cqB, p.domainB).context();
            final long second = one(p.cqB, p.domainB).context();
            assertEquals(21, first + second);
            assertPattern(in, 0, 16, 8);
            mr.close();
        }
    }

    @Test
    void shouldReachAPeerNameAgainOnceANewDomainOwnsIt()
    {
        final ShmPair p = new ShmPair(Progress.MANUAL, "-restart");
        try
        {
            p.closeB();
            final UnsafeBuffer small = pattern(48, 9);
            post(() -> p.a.tsend(small, 0, 48, p.addrBFromA, 1, 1), p.domainA);
            assertEquals(Errno.EIO, error(p.cqA, p.domainA).errno(), "nobody owns the name");

            final Info info = ShmTests.info(Progress.MANUAL, "b-restart");
            final Domain reborn = p.fabric.domain(info);
            final CompletionQueue cq = reborn.completionQueue(64, CqFormat.TAGGED);
            final AddressVector av = reborn.addressVector(AvType.TABLE, 4);
            final Endpoint ep = reborn.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
            final UnsafeBuffer in = direct(64);
            post(() -> ep.trecv(in, 0, 64, AddressVector.ADDR_UNSPEC, 1, 0, 100), reborn);

            // The same fi_addr as before: sends fail until the agent finds the new owner, then go through.
            final long deadline = System.nanoTime() + ShmTests.DEADLINE_NS;
            int attempts = 0;
            while (true)
            {
                attempts++;
                post(() -> p.a.tsend(small, 0, 48, p.addrBFromA, 1, 2), p.domainA, reborn);
                final CompletionEntry ok = new CompletionEntry();
                final CompletionErrorEntry err = new CompletionErrorEntry();
                int n;
                while ((n = p.cqA.read(ok)) == Errno.EAGAIN.negated())
                {
                    progress(p.domainA, reborn);
                }
                if (1 == n)
                {
                    assertEquals(2, ok.context());
                    break;
                }
                assertEquals(Errno.EAVAIL.negated(), n);
                p.cqA.readErr(err);
                assertEquals(Errno.EIO, err.errno());
                if (System.nanoTime() - deadline > 0)
                {
                    fail("the new owner of the name was not reached after " + attempts + " attempts");
                }
                progress(p.domainA, reborn);
            }
            final CompletionEntry received = one(cq, p.domainA, reborn);
            assertEquals(100, received.context());
            assertEquals(48, received.len());
            ShmTests.assertPattern(in, 0, 48, 9);
            ep.close();
            cq.close();
            av.close();
            reborn.close();
        }
        finally
        {
            p.close();
        }
    }

    @Test
    void shouldDeliverPastARecordClaimedByAWriterThatDiedBeforeCommittingIt()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-unblock"))
        {
            // A writer "ghost" announces a lane into b, claims a record in it and dies before committing it.
            try (ShmLaneFile lane = ShmTests.announceLane(dir, "b-unblock", "ghost", ShmRingFile.newIncarnation()))
            {
                assertTrue(lane.requests().tryClaim(ShmDomainTransport.RECORD_TYPE, 100) >= 0);
            }
            // Nothing a sends waits behind that claim: it heads the ghost's own lane, which b drops once drained.
            final UnsafeBuffer in = direct(64);
            post(() -> p.b.trecv(in, 0, 64, p.addrAFromB, 4, 0, 1), p.domains());
            post(() -> p.a.tsend(pattern(64, 4), 0, 64, p.addrBFromA, 4, 2), p.domains());
            assertEquals(2, one(p.cqA, p.domains()).context());
            final CompletionEntry received = one(p.cqB, p.domains());
            assertEquals(1, received.context());
            ShmTests.assertPattern(in, 0, 64, 4);
        }
    }

    @Test
    void shouldFailOperationsOfAPeerWhoseRingHeaderIsOverwrittenAndRefuseToMapItAgain()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-overwritten"))
        {
            final UnsafeBuffer big = pattern(1 << 20, 1);
            post(() -> p.a.tsend(big, 0, 1 << 20, p.addrBFromA, 9, 1), p.domainA);
            drive(p.domainA, 50);
            try (ShmRingFile b = ShmRingFile.openPeer(dir, "b-overwritten"))
            {
                b.buffer().putLong(ShmRingDescriptor.MAGIC_OFFSET, 0x1234L);
            }
            final CompletionErrorEntry e = error(p.cqA, p.domainA);
            assertEquals(1, e.context());
            assertEquals(Errno.EIO, e.errno());
            final io.jfabric.FabricException refused = org.junit.jupiter.api.Assertions.assertThrows(
                io.jfabric.FabricException.class, () -> p.avA.insert(p.b.name()));
            assertTrue(refused.getMessage().contains("bad magic"), refused.getMessage());
            // Put the magic back so that b closes (and removes its file) normally.
            try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(
                dir.resolve("b-overwritten.ring"), java.nio.file.StandardOpenOption.WRITE))
            {
                final java.nio.ByteBuffer magic = java.nio.ByteBuffer.allocate(8)
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, ShmRingDescriptor.MAGIC);
                channel.write(magic, 0);
            }
            catch (final java.io.IOException ex)
            {
                throw new IllegalStateException(ex);
            }
        }
    }
}
