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
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static io.jfabric.provider.shm.ShmTests.assertPattern;
import static io.jfabric.provider.shm.ShmTests.direct;
import static io.jfabric.provider.shm.ShmTests.error;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.pattern;
import static io.jfabric.provider.shm.ShmTests.post;
import static io.jfabric.provider.shm.ShmTests.progress;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Liveness in one JVM (issue 10, section 2): the lock-based rule (a pid that is not visible never makes a live
 * owner dead), a dead incarnation's uncommitted claim (in its own lane) after its name restarted, a damaged own ring
 * reported to the application, closed files of living owners left to them.
 */
@Timeout(90)
class ShmLivenessTest
{
    /** A pid no process has here (above the kernel's pid_max limit of 2^22). */
    private static final long INVISIBLE_PID = (1L << 22) + 4321;
    private static final int CHUNK = 256 * 1024;

    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-liveness-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        final List<String> left = ShmTests.ringFiles(dir);
        ShmTests.deleteTree(dir);
        assertEquals(List.of(), left, "every ring and lock file is removed on close");
    }

    private static void setOwnerPid(final String name, final long pid)
    {
        try (ShmRingFile file = ShmRingFile.openPeer(dir, name))
        {
            file.buffer().putLongVolatile(ShmRingDescriptor.PID_OFFSET, pid);
        }
    }

    @Test
    void shouldFlowPastAHalfWrittenChunkOfADeadIncarnationAfterItsNameRestartedAndWroteAgain()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-half"))
        {
            final UnsafeBuffer target = direct(4096);
            final MemoryRegion mr = p.domainA.registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 5);
            // Incarnation 1 of "g-half" took a slot in b's ring and died in the middle of a 256 KiB data chunk:
            // the record is claimed, never committed, at the head of b's answer ring.
            final long dead = ShmRingFile.newIncarnation() - (5000L << 16);
            try (ShmLaneFile lane = ShmTests.announceLane(dir, "b-half", "g-half", dead))
            {
                // Its slot names this (living) process: only the incarnation may decide.
                assertTrue(lane.answers().tryClaim(ShmDomainTransport.RECORD_TYPE, CHUNK + 64) >= 0);
            }
            // "g-half" restarts (a new incarnation) and writes to b before b's agent ran again.
            final Info info = ShmTests.info(Progress.MANUAL, "g-half");
            final Domain reborn = p.fabric.domain(info);
            final CompletionQueue cq = reborn.completionQueue(64, CqFormat.TAGGED);
            final AddressVector av = reborn.addressVector(AvType.TABLE, 4);
            final Endpoint g = reborn.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
            final long bFromG = av.insert(p.b.name());
            final long gFromB = p.avB.insert(g.name());
            final UnsafeBuffer in = direct(64);
            post(() -> p.b.trecv(in, 0, 64, gFromB, 3, 0, 30), p.domainB);
            post(() -> g.tsend(pattern(64, 3), 0, 64, bFromG, 3, 31), reborn);
            assertEquals(31, one(cq, reborn).context());

            // Everything of b that waits for an answer comes through the answer ring, behind the dead claim.
            final UnsafeBuffer small = pattern(32, 7);
            final UnsafeBuffer ops = direct(8);
            final UnsafeBuffer result = direct(8);
            ops.putLong(0, 5);
            post(() -> p.b.write(small, 0, 32, p.addrAFromB, 0, mr.key(), 1), p.domains());
            post(() -> p.b.fetchAtomic(ops, 0, 1, result, 0, p.addrAFromB, 64, mr.key(), AtomicDatatype.UINT64,
                AtomicOp.SUM, 2), p.domains());
            post(() -> p.b.tsendmsg(new Message().buffer(small, 0, 32).addr(p.addrAFromB).tag(4).context(3),
                Flags.COMPLETION | Flags.DELIVERY_COMPLETE), p.domains());
            final UnsafeBuffer got = direct(32);
            post(() -> p.a.trecv(got, 0, 32, AddressVector.ADDR_UNSPEC, 4, 0, 9), p.domains());
            final Set<Long> done = new HashSet<>();
            final Domain[] all = {p.domainA, p.domainB, reborn};
            for (int i = 0; i < 4; i++)
            {
                done.add(one(p.cqB, all).context());
            }
            assertEquals(Set.of(1L, 2L, 3L, 30L), done,
                "the write, the atomic, the delivery-complete send and g's message completed");
            assertPattern(in, 0, 64, 3);
            assertEquals(9, one(p.cqA, all).context());
            assertPattern(target, 0, 32, 7);
            assertEquals(0, result.getLong(0), "the atomic fetched the old value");
            assertEquals(5, target.getLong(64));
            g.close();
            cq.close();
            av.close();
            reborn.close();
            mr.close();
        }
    }

    @Test
    void shouldNeverTakeALiveOwnerForDeadWhenItsPidIsNotVisible()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-pidns"))
        {
            // b's header now names a pid this process cannot see, as from another PID namespace.
            setOwnerPid("b-pidns", INVISIBLE_PID);
            // A domain opening runs the stale-file scan: b's file must stay.
            final Info info = ShmTests.info(Progress.MANUAL, "c-pidns");
            final Domain c = p.fabric.domain(info);
            assertTrue(Files.exists(dir.resolve("b-pidns.ring")), "a live owner's ring is not reclaimed");
            final CompletionQueue cq = c.completionQueue(64, CqFormat.TAGGED);
            final AddressVector av = c.addressVector(AvType.TABLE, 4);
            final Endpoint ep = c.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
            final long bFromC = av.insert(p.b.name());
            assertNotEquals(AddressVector.ADDR_NOTAVAIL, bFromC, "the live owner's name resolves");

            // b goes quiet (no heartbeat, no progress) for well over the stale limit while c scans.
            final ShmRingFile bFile = ShmTests.transport(p.domainB).ownFile();
            ShmHeartbeat.instance().unregister(bFile);
            try
            {
                final long quietUntil = System.nanoTime() + 4 * ShmConfiguration.PROCESS_CHECK_INTERVAL_MS * 1_000_000L;
                while (System.nanoTime() - quietUntil < 0)
                {
                    progress(c);
                }
                assertTrue(System.currentTimeMillis() - bFile.heartbeat() > ShmConfiguration.STALE_AFTER_MS);
                assertEquals("LIVE", ShmTests.transport(c).peerState("b-pidns"), "stale heartbeat, invisible pid");
            }
            finally
            {
                ShmHeartbeat.instance().register(bFile);
            }
            final UnsafeBuffer in = direct(64);
            post(() -> p.b.trecv(in, 0, 64, AddressVector.ADDR_UNSPEC, 8, 0, 1), p.domainB);
            post(() -> ep.tsend(pattern(64, 8), 0, 64, bFromC, 8, 2), c);
            assertEquals(2, one(cq, c, p.domainB).context());
            assertEquals(1, one(p.cqB, c, p.domainB).context());
            assertPattern(in, 0, 64, 8);
            setOwnerPid("b-pidns", ProcessHandle.current().pid());
            ep.close();
            cq.close();
            av.close();
            c.close();
        }
    }

    @Test
    void shouldTakeAnOwnerForDeadOnceItsLockIsGoneWhateverItsPid()
    {
        // A "dead" owner: its file written with this (living) process's pid, its lock released as death would.
        final ShmRingFile ghost = ShmRingFile.create(dir, "ghost-lock", ShmConfiguration.MIN_RING_CAPACITY, 4);
        final long incarnation = ghost.incarnation();
        assertEquals(ShmLiveness.ALIVE, ShmLiveness.check(dir, "ghost-lock", incarnation));
        ghost.close();
        assertEquals(ShmLiveness.DEAD, ShmLiveness.check(dir, "ghost-lock", incarnation));
        assertEquals(ProcessHandle.current().pid(), ShmRingFile.Header.read(dir.resolve("ghost-lock.ring")).pid());
        assertTrue(ShmRingFile.reclaimStale(dir) >= 1);
        assertFalse(Files.exists(dir.resolve("ghost-lock.ring")), "reclaimed although its pid is alive");
    }

    @Test
    void shouldLeaveTheClosedRingOfALivingOwnerToItsOwner()
    {
        // A domain closing: its ring is marked closed but not removed yet. A stale scan running now must not move
        // it (a successor linking a new file meanwhile would be moved aside: FI_ADDR_NOTAVAIL for a live name).
        final ShmRingFile closing = ShmRingFile.create(dir, "closing", ShmConfiguration.MIN_RING_CAPACITY, 4);
        try
        {
            closing.markClosed();
            ShmRingFile.reclaimStale(dir);
            assertTrue(Files.exists(dir.resolve("closing.ring")), "left to its living owner");
        }
        finally
        {
            closing.delete();
            closing.close();
        }
    }

    @Test
    void shouldAttributeAndReachEveryIncarnationOfANameReopenedInThisJvm() throws Exception
    {
        final Info serverInfo = ShmTests.info(Progress.MANUAL, "srv-reuse");
        final Info clientInfo = ShmTests.info(Progress.MANUAL, "cli-reuse");
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicReference<Throwable> noiseFailure = new AtomicReference<>();
        try (Fabric fabric = Fabric.open(serverInfo))
        {
            final Domain server = fabric.domain(serverInfo, "yield");
            final CompletionQueue scq = server.completionQueue(256, CqFormat.TAGGED);
            final AddressVector sav = server.addressVector(AvType.TABLE, 64);
            final Endpoint sep = server.endpoint(serverInfo).bind(sav, 0).bind(scq, Flags.TRANSMIT | Flags.RECV)
                .enable();
            // Domains opening and closing meanwhile: each open runs the stale-file scan over the directory.
            final Thread noise = new Thread(() ->
            {
                try
                {
                    for (int i = 0; !stop.get(); i++)
                    {
                        final Info info = ShmTests.info(Progress.MANUAL, "noise-" + (i & 3));
                        fabric.domain(info).close();
                    }
                }
                catch (final Throwable ex)
                {
                    noiseFailure.set(ex);
                }
            }, "noise");
            noise.start();
            try
            {
                for (int round = 0; round < 30; round++)
                {
                    final int tag = 100 + round;
                    final int seed = round;
                    final Domain client = fabric.domain(clientInfo, "yield");
                    final CompletionQueue ccq = client.completionQueue(64, CqFormat.TAGGED);
                    final AddressVector cav = client.addressVector(AvType.TABLE, 4);
                    final Endpoint cep = client.endpoint(clientInfo).bind(cav, 0)
                        .bind(ccq, Flags.TRANSMIT | Flags.RECV).enable();
                    final long serverFromClient = cav.insert(sep.name());
                    // The name again, for the new incarnation: resolvable, and its messages are this entry's.
                    final long clientFromServer = sav.insert(cep.name());
                    assertNotEquals(AddressVector.ADDR_NOTAVAIL, clientFromServer, "round " + round);
                    // The server reaches this incarnation through the re-inserted address, before it heard from it
                    // (its entry still maps the previous, closed incarnation).
                    final UnsafeBuffer back = direct(16);
                    post(() -> cep.trecv(back, 0, 16, AddressVector.ADDR_UNSPEC, tag, 0, 3), client);
                    post(() -> sep.tsend(pattern(16, tag), 0, 16, clientFromServer, tag, 4), server);
                    assertEquals(4, one(scq, server).context(), "round " + round);
                    assertEquals(3, one(ccq, client, server).context(), "round " + round);
                    assertPattern(back, 0, 16, tag);
                    // And this incarnation's messages match a receive directed at the re-inserted address.
                    final UnsafeBuffer in = direct(16);
                    post(() -> sep.trecv(in, 0, 16, clientFromServer, tag, 0, 1), server);
                    post(() -> cep.tsend(pattern(16, seed), 0, 16, serverFromClient, tag, 2), client);
                    assertEquals(2, one(ccq, client).context(), "round " + round);
                    assertEquals(1, one(scq, server, client).context(), "round " + round);
                    assertPattern(in, 0, 16, round);
                    cep.close();
                    ccq.close();
                    cav.close();
                    client.close();
                }
            }
            finally
            {
                stop.set(true);
                noise.join();
            }
            assertEquals(null, noiseFailure.get());
            sep.close();
            scq.close();
            sav.close();
            server.close();
        }
    }

    @Test
    void shouldMatchAReceiveDirectedAtTheReinsertedAddressOnceTheOldEntryIsRemoved()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-reinsert"))
        {
            // b inserts a's name again (as for a restarted client), then removes the old entry.
            final long again = p.avB.insert(p.a.name());
            assertNotEquals(p.addrAFromB, again);
            p.avB.remove(p.addrAFromB);
            final UnsafeBuffer in = direct(16);
            post(() -> p.b.trecv(in, 0, 16, again, 6, 0, 1), p.domains());
            post(() -> p.a.tsend(pattern(16, 6), 0, 16, p.addrBFromA, 6, 2), p.domains());
            assertEquals(2, one(p.cqA, p.domains()).context());
            final CompletionEntry received = one(p.cqB, p.domains());
            assertEquals(1, received.context());
            assertPattern(in, 0, 16, 6);

            // And the other way round: the newest handle removed, the older one (still in the vector) takes over.
            final long third = p.avB.insert(p.a.name());
            p.avB.remove(third);
            post(() -> p.b.trecv(in, 0, 16, again, 7, 0, 3), p.domains());
            post(() -> p.a.tsend(pattern(16, 7), 0, 16, p.addrBFromA, 7, 4), p.domains());
            assertEquals(4, one(p.cqA, p.domains()).context());
            assertEquals(3, one(p.cqB, p.domains()).context());
            assertPattern(in, 0, 16, 7);
        }
    }

    @Test
    void shouldReleaseTheSlotOfADeadWriterItNeverHeardFromAndKeepALiveOnes()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-sweep"))
        {
            // A writer that claimed a slot in b's ring and died before writing anything (restarted writers take
            // fresh slots, so such slots must not pile up).
            final long dead = ShmRingFile.newIncarnation() - (5000L << 16);
            final ShmRingFile own = ShmTests.transport(p.domainB).ownFile();
            final int slot = own.claimSlot(dead, "gone-sweep".getBytes(StandardCharsets.US_ASCII));
            // A live writer b never heard from either.
            final Info info = ShmTests.info(Progress.MANUAL, "quiet-sweep");
            final Domain quiet = p.fabric.domain(info);
            final AddressVector av = quiet.addressVector(AvType.TABLE, 4);
            assertNotEquals(AddressVector.ADDR_NOTAVAIL, av.insert(p.b.name()));
            final long quietIncarnation = ShmTests.transport(quiet).ownFile().incarnation();
            final int quietSlot = own.claimSlot(quietIncarnation, "quiet-sweep".getBytes(StandardCharsets.US_ASCII));

            final long deadline = System.nanoTime() + ShmTests.DEADLINE_NS;
            while (own.slotIncarnation(slot) == dead)
            {
                assertTrue(System.nanoTime() - deadline < 0, "the dead writer's slot was never released");
                progress(p.domainB);
            }
            assertEquals(0, own.slotIncarnation(slot));
            assertEquals(quietIncarnation, own.slotIncarnation(quietSlot), "a live writer keeps its slot");
            av.close();
            quiet.close();
        }
    }

    @Test
    void shouldFailOutstandingAndNewOperationsWhenTheOwnRingHeaderIsDamaged()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-deaf"))
        {
            final UnsafeBuffer target = direct(4096);
            final MemoryRegion mr = p.domainB.registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 6);
            final UnsafeBuffer small = pattern(32, 2);
            final UnsafeBuffer local = direct(32);
            final UnsafeBuffer inbox = direct(32);
            // A receive posted at a before the damage: a can hear nothing afterwards, so it must fail, not wait.
            post(() -> p.a.trecv(inbox, 0, 32, io.jfabric.AddressVector.ADDR_UNSPEC, 77, 0, 7), p.domainA);
            // Outstanding at b, which does not progress yet.
            post(() -> p.a.tsendmsg(new Message().buffer(small, 0, 32).addr(p.addrBFromA).tag(1).context(1),
                Flags.COMPLETION | Flags.DELIVERY_COMPLETE), p.domainA);
            post(() -> p.a.read(local, 0, 32, p.addrBFromA, 0, mr.key(), 2), p.domainA);
            for (int i = 0; i < 50; i++)
            {
                progress(p.domainA);
            }
            // Someone overwrites a's own ring header: a can no longer read its answers.
            try (ShmRingFile a = ShmRingFile.openPeer(dir, "a-deaf"))
            {
                a.buffer().putLong(ShmRingDescriptor.MAGIC_OFFSET, 0x5EADL);
                try
                {
                    final Map<Long, CompletionErrorEntry> errors = new HashMap<>();
                    for (int i = 0; i < 3; i++)
                    {
                        final CompletionErrorEntry e = error(p.cqA, p.domainA);
                        errors.put(e.context(), e);
                        assertEquals(Errno.EIO, e.errno(), "context " + e.context());
                    }
                    assertEquals(Flags.SEND | Flags.TAGGED, errors.get(1L).flags());
                    assertEquals(Flags.RMA | Flags.READ, errors.get(2L).flags());
                    assertEquals(Flags.RECV | Flags.TAGGED, errors.get(7L).flags());
                    // A receive posted afterwards fails as well.
                    post(() -> p.a.trecv(inbox, 0, 32, io.jfabric.AddressVector.ADDR_UNSPEC, 78, 0, 8), p.domainA);
                    final CompletionErrorEntry late = error(p.cqA, p.domainA);
                    assertEquals(8, late.context());
                    assertEquals(Errno.EIO, late.errno());
                    assertTrue(ShmTests.transport(p.domainA).ownBroken());

                    // New sends fail too, even to a peer that takes them, and to itself.
                    post(() -> p.a.tsend(small, 0, 32, p.addrBFromA, 5, 3), p.domains());
                    final CompletionErrorEntry next = error(p.cqA, p.domains());
                    assertEquals(3, next.context());
                    assertEquals(Errno.EIO, next.errno());
                    final FabricException refused = assertThrows(FabricException.class,
                        () -> p.avA.insert(p.b.name()));
                    assertEquals(Errno.EIO, refused.errno());
                    assertTrue(refused.getMessage().contains("a-deaf.ring"), refused.getMessage());
                }
                finally
                {
                    a.buffer().putLong(ShmRingDescriptor.MAGIC_OFFSET, ShmRingDescriptor.MAGIC);
                }
            }
            mr.close();
        }
    }

    @Test
    void shouldReportADamagedOwnRingAsAnErrorEventOnTheEventQueueBoundToTheDomain()
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-eqdeaf"))
        {
            final EventQueue eq = p.fabric.eventQueue(4);
            assertThrows(FabricException.class, () -> p.domainA.bind(eq, Flags.SEND), "flags other than 0");
            assertSame(p.domainA, p.domainA.bind(eq, 0));
            final EqEntry entry = new EqEntry();
            for (int i = 0; i < 20; i++)
            {
                progress(p.domainA);
            }
            assertEquals(Errno.EAGAIN.negated(), eq.read(entry, 0), "nothing to report while the ring is intact");
            try (ShmRingFile a = ShmRingFile.openPeer(dir, "a-eqdeaf"))
            {
                a.buffer().putLong(ShmRingDescriptor.MAGIC_OFFSET, 0x5EADL);
                try
                {
                    final long deadline = System.nanoTime() + ShmTests.DEADLINE_NS;
                    while (Errno.EAVAIL.negated() != eq.read(entry, 0))
                    {
                        assertTrue(System.nanoTime() < deadline, "no error event for the damaged ring");
                        progress(p.domainA);
                    }
                    assertEquals(1, eq.readErr(entry));
                    assertEquals(EventQueue.NOTIFY, entry.event());
                    assertSame(p.domainA, entry.fid());
                    assertEquals(Errno.EIO.value(), entry.err());
                    final String detail = new String(entry.param(), StandardCharsets.UTF_8);
                    assertTrue(detail.contains("a-eqdeaf.ring") && detail.contains("damaged"), detail);
                    // One event per damage, not one per duty cycle.
                    for (int i = 0; i < 20; i++)
                    {
                        progress(p.domainA);
                    }
                    assertEquals(Errno.EAGAIN.negated(), eq.read(entry, 0));
                }
                finally
                {
                    a.buffer().putLong(ShmRingDescriptor.MAGIC_OFFSET, ShmRingDescriptor.MAGIC);
                }
            }
            eq.close();
        }
    }
}
