package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Version;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two fabrics of this JVM attached to one driver ({@link AeronConfiguration#DIR_PROP}), as two processes sharing an
 * external driver are: their domains find each other in the driver's registry ({@link AeronIpcRegistry}) and talk
 * over {@code aeron:ipc} (the driver sent no UDP byte, its IPC subscriptions consumed the data), by UDP with
 * {@link AeronConfiguration#IPC_PROP} false, and by UDP to a peer whose registry entry names a dead client.
 */
class AeronIpcTest
{
    private static final int LENGTH = (1 << 20) + 3;

    private MediaDriver driver;

    @AfterEach
    void stopDriver()
    {
        AeronTests.stopSharedDriver(driver);
    }

    @Test
    void shouldTalkOverIpcBetweenFabricsOnOneDriverAndWithdrawTheRegistryEntriesOnClose() throws Exception
    {
        driver = AeronTests.startSharedDriver(true);
        final Path registry = Paths.get(driver.aeronDirectoryName(), AeronIpcRegistry.DIRECTORY);
        final DriverTraffic traffic = exchange(false);
        assertEquals(0, traffic.udpBytesSent(), "the driver sent UDP: " + traffic);
        assertTrue(traffic.ipcBytesPolled() >= 2L * LENGTH, "IPC carried too little: " + traffic);
        try (Stream<Path> left = Files.list(registry))
        {
            assertEquals(0, left.filter(p -> !p.getFileName().toString().startsWith(".")).count(),
                "closed domains left registry entries");
        }
    }

    @Test
    void shouldTalkUdpThroughTheDriverWhenIpcIsOff() throws Exception
    {
        driver = AeronTests.startSharedDriver(false);
        final DriverTraffic traffic = exchange(false);
        assertTrue(traffic.udpBytesSent() >= 2L * LENGTH, "UDP carried too little: " + traffic);
        assertEquals(0, traffic.ipcBytesPolled(), "IPC was used: " + traffic);
        assertFalse(Files.exists(Paths.get(driver.aeronDirectoryName(), AeronIpcRegistry.DIRECTORY)));
    }

    @Test
    void shouldFallBackToUdpForAPeerWhoseRegistryEntryNamesADeadClient() throws Exception
    {
        driver = AeronTests.startSharedDriver(true);
        final DriverTraffic traffic = exchange(true);
        assertTrue(traffic.udpBytesSent() >= LENGTH, "the peer with the stale entry was not reached by UDP: " +
            traffic);
    }

    /**
     * Two fabrics, one domain each: a 1 MiB + 3 tagged message (rendezvous) and a 100-byte one each way, data
     * verified; the driver's counters read before the domains close.
     */
    private DriverTraffic exchange(final boolean staleB) throws Exception
    {
        final Info hints = Info.builder().caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build()).build();
        final Info info = Fabric.getInfo(Version.CURRENT, null, null, 0, hints).get(0);
        try (Fabric fabricA = Fabric.open(info);
            Fabric fabricB = Fabric.open(info);
            Domain a = fabricA.domain(info, "yield");
            Domain b = fabricB.domain(info, "yield");
            AddressVector avA = a.addressVector(AvType.TABLE, 4);
            AddressVector avB = b.addressVector(AvType.TABLE, 4);
            CompletionQueue cqA = a.completionQueue(64, CqFormat.TAGGED);
            CompletionQueue cqB = b.completionQueue(64, CqFormat.TAGGED);
            Endpoint epA = a.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
            Endpoint epB = b.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable())
        {
            if (staleB)
            {
                // B's entry as a process killed long ago would have left it: a client id no heartbeat names.
                final String name = new String(epB.name(), StandardCharsets.US_ASCII);
                final AeronAddress address = AeronAddress.parseText(name).withEndpoint(0);
                final Path file = Paths.get(driver.aeronDirectoryName(), AeronIpcRegistry.DIRECTORY,
                    address.domainKey().replaceAll("[^A-Za-z0-9]", "_"));
                final String[] fields = Files.readString(file).trim().split(" ");
                Files.writeString(file, fields[0] + " " + Long.MAX_VALUE + " " + fields[2] + "\n");
            }
            final long toB = avA.insert(epB.name());
            final long toA = avB.insert(epA.name());
            roundTrip(epA, cqA, toB, epB, cqB, toA, LENGTH);
            roundTrip(epB, cqB, toA, epA, cqA, toB, LENGTH);
            roundTrip(epA, cqA, toB, epB, cqB, toA, 100);
            roundTrip(epB, cqB, toA, epA, cqA, toB, 100);
            return DriverTraffic.of(driver.context().countersManager());
        }
    }

    private static void roundTrip(
        final Endpoint from, final CompletionQueue fromCq, final long to,
        final Endpoint into, final CompletionQueue intoCq, final long source, final int length)
    {
        final UnsafeBuffer out = AeronNode.direct(length);
        AeronNode.fill(out, length, length & 0x7F);
        final UnsafeBuffer in = AeronNode.direct(length);
        assertEquals(0, into.trecv(in, 0, length, source, 9, 0, 1));
        assertEquals(0, from.tsend(out, 0, length, to, 9, 2));
        assertEquals(2, await(fromCq).context());
        final CompletionEntry got = await(intoCq);
        assertEquals(1, got.context());
        assertEquals(length, got.len());
        for (int i = 0; i < length; i++)
        {
            if (out.getByte(i) != in.getByte(i))
            {
                assertEquals(out.getByte(i), in.getByte(i), "byte " + i);
            }
        }
    }

    private static CompletionEntry await(final CompletionQueue cq)
    {
        final CompletionEntry entry = new CompletionEntry();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int n;
        while (1 != (n = cq.read(entry)))
        {
            assertEquals(Errno.EAGAIN.negated(), n, "cq.read");
            assertTrue(System.nanoTime() - deadline < 0, "no completion");
            Thread.yield();
        }
        return entry;
    }
}
