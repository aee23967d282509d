package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Progress;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static io.jfabric.provider.shm.ShmTests.assertPattern;
import static io.jfabric.provider.shm.ShmTests.direct;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fabtests' {@code rdm_shared_av} across processes: a named address vector created by this process is a 0600 file
 * in the shm directory; a child JVM opens it read-only ({@code FI_READ}), sees the same address at every index and
 * sends through it to the peer that index names here. The file goes with its creator; one left by a creator that
 * died is replaced by the next creator.
 */
@Timeout(120)
class ShmSharedAvMultiProcessTest
{
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-sharedav-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        ShmTests.deleteTree(dir);
    }

    @Test
    void shouldMapTheSameFiAddrsToTheSamePeersInAChildProcess() throws Exception
    {
        final String name = "shav-" + ProcessHandle.current().pid();
        try (ShmMultiProcessTest.Local local = new ShmMultiProcessTest.Local("p-shav", Progress.MANUAL);
            ShmChildProcess child = ShmChildProcess.start(dir, "c-shav", Progress.MANUAL, local.domain))
        {
            final Domain d = local.domain;
            try (AddressVector shared = d.addressVector(AvAttr.builder().type(AvType.TABLE).count(4).name(name)
                .build()))
            {
                final Path file = dir.resolve(name + ShmSharedAddressTable.SUFFIX);
                assertTrue(Files.isRegularFile(file));
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
                assertEquals(0, shared.insert(child.address.getBytes()), "fi_addr 0: the child");
                assertEquals(1, shared.insert(local.address.getBytes()), "fi_addr 1: this process");
                final UnsafeBuffer rx = direct(256);
                post(() -> local.ep.trecv(rx, 0, 256, AddressVector.ADDR_UNSPEC, 21, 0, 8), d);
                final String answer = child.call("avsend " + name + " 1 256 21", d);
                assertTrue(answer.startsWith("AVSENT "), answer);
                final String[] lookups = answer.substring("AVSENT ".length()).split(" ");
                assertEquals(2, lookups.length, answer);
                assertEquals(BitUtil.toHex(shared.lookup(0)), lookups[0], "index 0 in the child");
                assertEquals(BitUtil.toHex(shared.lookup(1)), lookups[1], "index 1 in the child");
                assertEquals(8, one(local.cq, d).context(), "fi_addr 1 of the child's read-only open is here");
                assertPattern(rx, 0, 256, 1);
                assertEquals(Errno.EEXIST, assertThrows(FabricException.class,
                    () -> d.addressVector(AvAttr.builder().name(name).build())).errno());
            }
            assertFalse(Files.exists(dir.resolve(name + ShmSharedAddressTable.SUFFIX)), "gone with its creator");
            final String gone = child.call("avsend " + name + " 0 8 1", d);
            assertTrue(gone.startsWith("REFUSED " + Errno.ENOENT), gone);
        }
    }

    @Test
    void shouldReplaceTheFileOfACreatorThatDied() throws Exception
    {
        final String name = "shav-dead-" + ProcessHandle.current().pid();
        final Path file = dir.resolve(name + ShmSharedAddressTable.SUFFIX);
        // A file whose creator is gone: nobody holds its lock.
        ShmFiles.createOwnerOnly(file);
        Files.write(file, new byte[64]);
        try (ShmMultiProcessTest.Local local = new ShmMultiProcessTest.Local("p-shav-dead", Progress.MANUAL))
        {
            assertEquals(Errno.ENOENT, assertThrows(FabricException.class, () -> local.domain.addressVector(
                AvAttr.builder().name(name).flags(AvAttr.READ).build())).errno(), "not a finished named vector");
            try (AddressVector shared = local.domain.addressVector(AvAttr.builder().name(name).count(2).build()))
            {
                assertEquals(0, shared.insert(local.address.getBytes()));
                try (AddressVector reader = local.domain.addressVector(AvAttr.builder().name(name)
                    .flags(AvAttr.READ).build()))
                {
                    assertEquals(local.address, new String(reader.lookup(0)));
                }
            }
        }
    }
}
