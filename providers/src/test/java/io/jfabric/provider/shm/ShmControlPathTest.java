package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.Version;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.List;

import static io.jfabric.provider.shm.ShmTests.direct;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.pattern;
import static io.jfabric.provider.shm.ShmTests.post;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * getInfo, names, addresses and ring files of the shm provider.
 */
@Timeout(60)
class ShmControlPathTest
{
    /** Above pid_max (2^22 on Linux): no process can have it. */
    private static final long DEAD_PID = (1L << 22) + 12345;
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-control-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        ShmTests.deleteTree(dir);
    }

    private static String text(final byte[] address)
    {
        return new String(address, StandardCharsets.US_ASCII);
    }

    @Test
    void shouldOfferRdmWithManualProgressByDefaultAndAutoOnRequest()
    {
        final List<Info> infos = Fabric.getInfo(ShmTests.hints(Progress.UNSPEC));
        final Info first = infos.get(0);
        assertEquals(ShmProvider.NAME, first.fabricAttr().provName());
        assertEquals(Progress.MANUAL, first.domainAttr().dataProgress());
        assertEquals(io.jfabric.AddressFormat.STR, first.addrFormat());
        assertEquals(io.jfabric.EndpointType.RDM, first.epAttr().type());
        assertEquals("fi_shm://" + ProcessHandle.current().pid(), text(first.srcAddr()));
        assertEquals(ShmProvider.INJECT_SIZE, first.txAttr().injectSize());
        assertEquals(ShmProvider.MAX_MSG_SIZE, first.epAttr().maxMsgSize());
        final long caps = Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC | Flags.DIRECTED_RECV |
            Flags.MULTI_RECV | Flags.SOURCE | Flags.RMA_EVENT;
        final List<Info> withCaps = Fabric.getInfo(io.jfabric.Info.builder().caps(caps)
            .fabricAttr(io.jfabric.FabricAttr.builder().provName("shm").build()).build());
        assertEquals(caps, withCaps.get(0).caps() & caps);

        final List<Info> auto = Fabric.getInfo(ShmTests.hints(Progress.AUTO));
        assertEquals(2, auto.size(), "RDM, then MSG (connected through a passive endpoint)");
        assertEquals(Progress.AUTO, auto.get(0).domainAttr().dataProgress());
        assertEquals(io.jfabric.EndpointType.RDM, auto.get(0).epAttr().type());
        assertEquals(io.jfabric.EndpointType.MSG, auto.get(1).epAttr().type());
        assertEquals(0, auto.get(1).caps() & Flags.DIRECTED_RECV, "one peer: no directed receive");
        final List<Info> manual = Fabric.getInfo(ShmTests.hints(Progress.MANUAL));
        assertEquals(2, manual.size(), "the AUTO infos altered to MANUAL are the same infos: each listed once");
    }

    @Test
    void shouldTakeTheSourceNameFromNodeWithFiSourceAndTheDestinationWithout()
    {
        final Info named = ShmTests.info(Progress.MANUAL, "alpha");
        assertEquals("fi_shm://alpha", text(named.srcAddr()));
        final Info addressed = Fabric.getInfo(Version.CURRENT, "fi_shm://alpha:3", null, Flags.SOURCE,
            ShmTests.hints(Progress.MANUAL)).get(0);
        assertEquals("fi_shm://alpha:3", text(addressed.srcAddr()));
        final Info destination = Fabric.getInfo(Version.CURRENT, "beta", null, 0,
            ShmTests.hints(Progress.MANUAL)).get(0);
        assertEquals("fi_shm://beta", text(destination.destAddr()));
        assertEquals("fi_shm://" + ProcessHandle.current().pid(), text(destination.srcAddr()));
        final FabricException bad = assertThrows(FabricException.class, () -> Fabric.getInfo(Version.CURRENT,
            "no/slash", null, Flags.SOURCE, ShmTests.hints(Progress.MANUAL)));
        assertEquals(Errno.ENODATA, bad.errno());
    }

    @Test
    void shouldCreateAnOwnerOnlyRingFileNamedAfterTheSourceAndRemoveItOnClose() throws IOException
    {
        final Info info = ShmTests.info(Progress.MANUAL, "owner-only");
        final Path ring = dir.resolve("owner-only.ring");
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info);
            assertTrue(Files.exists(ring));
            assertEquals(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
                Files.getPosixFilePermissions(ring));
            final ShmRingFile.Header header = ShmRingFile.Header.read(ring);
            assertEquals(null, header.defect());
            assertEquals(ProcessHandle.current().pid(), header.pid());
            assertEquals("owner-only", header.name());
            assertEquals(ShmRingDescriptor.fileLength(ShmConfiguration.SENDER_SLOTS),
                Files.size(ring));
            final Endpoint first = domain.endpoint(info);
            final Endpoint second = domain.endpoint(info);
            assertEquals("fi_shm://owner-only", text(first.name()));
            assertEquals("fi_shm://owner-only:1", text(second.name()));

            final FabricException taken = assertThrows(FabricException.class, () -> fabric.domain(info));
            assertEquals(Errno.EADDRINUSE, taken.errno());
            assertTrue(taken.getMessage().contains("pid " + ProcessHandle.current().pid()), taken.getMessage());
            second.close();
            first.close();
            domain.close();
            assertFalse(Files.exists(ring), "removed on close");
        }
    }

    @Test
    void shouldGiveEachDefaultDomainOfTheProcessItsOwnName()
    {
        final Info info = ShmTests.info(Progress.MANUAL, null);
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain one = fabric.domain(info);
            final Domain two = fabric.domain(info);
            final Endpoint e1 = one.endpoint(info);
            final Endpoint e2 = two.endpoint(info);
            final String pid = Long.toString(ProcessHandle.current().pid());
            assertEquals("fi_shm://" + pid, text(e1.name()));
            assertEquals("fi_shm://" + pid + "-1", text(e2.name()));
            e1.close();
            e2.close();
            one.close();
            two.close();
        }
    }

    @Test
    void shouldNotInsertAnAddressNobodyOwnsAndAcceptTheBinaryForm()
    {
        final Info info = ShmTests.info(Progress.MANUAL, "inserter");
        final Info peerInfo = ShmTests.info(Progress.MANUAL, "insertee");
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info);
            final Domain peerDomain = fabric.domain(peerInfo);
            final AddressVector av = domain.addressVector(AvType.TABLE, 4);
            final AddressVector map = domain.addressVector(AvType.MAP, 4);
            final CompletionQueue cq = domain.completionQueue(64, CqFormat.TAGGED);
            final CompletionQueue peerCq = peerDomain.completionQueue(64, CqFormat.TAGGED);
            final AddressVector peerAv = peerDomain.addressVector(AvType.TABLE, 4);
            final Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
            final Endpoint peer = peerDomain.endpoint(peerInfo).bind(peerAv, 0)
                .bind(peerCq, Flags.TRANSMIT | Flags.RECV).enable();
            final Endpoint mapped = domain.endpoint(info).bind(map, 0).bind(cq, Flags.TRANSMIT).enable();

            assertEquals(AddressVector.ADDR_NOTAVAIL, av.insert("fi_shm://nobody".getBytes(StandardCharsets.US_ASCII)));
            assertEquals(AddressVector.ADDR_NOTAVAIL, av.insert("not an address".getBytes(StandardCharsets.US_ASCII)));
            final long[] handles = new long[2];
            final int[] errors = new int[2];
            assertEquals(1, av.insert(new byte[][]{"fi_shm://nobody".getBytes(StandardCharsets.US_ASCII),
                peer.name()}, handles, AddressVector.SYNC_ERR, errors));
            assertEquals(AddressVector.ADDR_NOTAVAIL, handles[0]);
            assertNotEquals(0, errors[0]);
            assertEquals(0, errors[1]);

            final byte[] binary = ShmAddress.toBinary(peer.name());
            assertEquals(ShmAddressDescriptor.LENGTH, binary.length);
            assertEquals(new ShmAddress("insertee", 0), ShmAddress.parse(binary));
            final long viaBinary = av.insert(binary);
            assertEquals("fi_shm://insertee", text(av.lookup(viaBinary)));
            final long viaMap = map.insert(peer.name());
            assertArrayEquals(peer.name(), map.lookup(viaMap));

            final UnsafeBuffer in = direct(64);
            post(() -> peer.trecv(in, 0, 64, AddressVector.ADDR_UNSPEC, 1, 0, 1), domain, peerDomain);
            post(() -> ep.tsend(pattern(32, 3), 0, 32, viaBinary, 1, 2), domain, peerDomain);
            assertEquals(2, one(cq, domain, peerDomain).context());
            assertEquals(32, one(peerCq, domain, peerDomain).len());
            post(() -> peer.trecv(in, 0, 64, AddressVector.ADDR_UNSPEC, 1, 0, 3), domain, peerDomain);
            post(() -> mapped.tsend(pattern(16, 4), 0, 16, viaMap, 1, 4), domain, peerDomain);
            assertEquals(4, one(cq, domain, peerDomain).context());
            assertEquals(16, one(peerCq, domain, peerDomain).len());
            ShmTests.assertPattern(in, 0, 16, 4);

            ep.close();
            mapped.close();
            peer.close();
            cq.close();
            peerCq.close();
            av.close();
            map.close();
            peerAv.close();
            domain.close();
            peerDomain.close();
        }
    }

    @Test
    void shouldRefuseCorruptedAndTruncatedRingFilesWithAClearError() throws IOException
    {
        final Info info = ShmTests.info(Progress.MANUAL, "validator");
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info);
            final AddressVector av = domain.addressVector(AvType.TABLE, 4);

            final Path garbage = dir.resolve("garbage.ring");
            final byte[] junk = new byte[8192];
            new java.util.Random(1).nextBytes(junk);
            Files.write(garbage, junk);
            FabricException ex = assertThrows(FabricException.class,
                () -> av.insert("fi_shm://garbage".getBytes(StandardCharsets.US_ASCII)));
            assertEquals(Errno.EIO, ex.errno());
            assertTrue(ex.getMessage().contains("bad magic"), ex.getMessage());
            assertTrue(ex.getMessage().contains("garbage.ring"), ex.getMessage());

            final Path tiny = dir.resolve("tiny.ring");
            Files.write(tiny, new byte[100]);
            ex = assertThrows(FabricException.class,
                () -> av.insert("fi_shm://tiny".getBytes(StandardCharsets.US_ASCII)));
            assertTrue(ex.getMessage().contains("truncated: 100 bytes"), ex.getMessage());

            final ShmRingFile real = ShmRingFile.create(dir, "cut", ShmConfiguration.MIN_RING_CAPACITY, 4);
            real.close();
            try (FileChannel channel = FileChannel.open(dir.resolve("cut.ring"), StandardOpenOption.WRITE))
            {
                channel.truncate(1024);
            }
            ex = assertThrows(FabricException.class,
                () -> av.insert("fi_shm://cut".getBytes(StandardCharsets.US_ASCII)));
            assertEquals(Errno.EIO, ex.errno());
            assertTrue(ex.getMessage().contains("truncated: 1024 bytes, its header says"), ex.getMessage());

            // A domain cannot take a name whose file is not a ring file: the owner is unknown.
            final Info garbageInfo = ShmTests.info(Progress.MANUAL, "garbage");
            ex = assertThrows(FabricException.class, () -> fabric.domain(garbageInfo));
            assertEquals(Errno.EIO, ex.errno());
            assertTrue(ex.getMessage().contains("remove it"), ex.getMessage());

            Files.delete(garbage);
            Files.delete(tiny);
            Files.delete(dir.resolve("cut.ring"));
            av.close();
            domain.close();
        }
    }

    @Test
    void shouldReclaimTheFileOfADeadOwnerWhenADomainOpens() throws IOException
    {
        final ShmRingFile stale = ShmRingFile.create(dir, "stale", ShmConfiguration.MIN_RING_CAPACITY, 4);
        stale.buffer().putLong(ShmRingDescriptor.PID_OFFSET, DEAD_PID);
        stale.close();
        final Path path = dir.resolve("stale.ring");
        assertTrue(Files.exists(path));
        final Info info = ShmTests.info(Progress.MANUAL, "reclaimer");
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info);
            assertFalse(Files.exists(path), "the dead owner's file is reclaimed at start");
            final AddressVector av = domain.addressVector(AvType.TABLE, 4);
            assertEquals(AddressVector.ADDR_NOTAVAIL, av.insert("fi_shm://stale".getBytes(StandardCharsets.US_ASCII)));

            // A dead owner's file under the very name asked for is reclaimed too.
            final ShmRingFile again = ShmRingFile.create(dir, "stale", ShmConfiguration.MIN_RING_CAPACITY, 4);
            again.buffer().putLong(ShmRingDescriptor.PID_OFFSET, DEAD_PID);
            again.close();
            final Info staleInfo = ShmTests.info(Progress.MANUAL, "stale");
            final Domain reborn = fabric.domain(staleInfo);
            assertEquals(ProcessHandle.current().pid(), ShmRingFile.Header.read(path).pid());
            reborn.close();
            av.close();
            domain.close();
        }
    }

    @Test
    void shouldKeepTheHeartbeatOfAnIdleManualDomainFresh() throws InterruptedException
    {
        final Info info = ShmTests.info(Progress.MANUAL, "heartbeat");
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain domain = fabric.domain(info);
            final Path path = dir.resolve("heartbeat.ring");
            final long first = heartbeat(path);
            final long deadline = System.nanoTime() + ShmTests.DEADLINE_NS;
            long later = first;
            while (later == first && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
                later = heartbeat(path);
            }
            assertTrue(later > first, "heartbeat advances without any progress call");
            domain.close();
        }
    }

    private static long heartbeat(final Path path)
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ))
        {
            final ByteBuffer bytes = ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            channel.read(bytes, ShmRingDescriptor.HEARTBEAT_OFFSET);
            return bytes.getLong(0);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
