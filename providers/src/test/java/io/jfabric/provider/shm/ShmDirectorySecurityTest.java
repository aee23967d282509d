package io.jfabric.provider.shm;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.Info;
import io.jfabric.Progress;
import org.agrona.concurrent.AtomicBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shm directory and its files belong to one user: a directory others can use, another user's directory, a
 * symbolic link in place of the directory or of a ring file, and a peer file others can access are refused with
 * EACCES naming the path, what was found and what is required.
 */
@Timeout(60)
class ShmDirectorySecurityTest
{
    private static final long OTHER_UID = 12345;
    private Path base;

    @BeforeEach
    void directory() throws IOException
    {
        base = ShmTests.useNewDirectory("jfabric-shm-security-");
    }

    @AfterEach
    void cleanup() throws IOException
    {
        System.setProperty(ShmConfiguration.DIR_PROP, base.toString());
        ShmTests.deleteTree(base);
    }

    /**
     * Open a domain called {@code name} with {@code dir} as the shm directory; it must be refused.
     */
    private static FabricException refusedDomain(final Path dir, final String name)
    {
        System.setProperty(ShmConfiguration.DIR_PROP, dir.toString());
        final Info info = ShmTests.info(Progress.MANUAL, name);
        try (Fabric fabric = Fabric.open(info))
        {
            final FabricException ex = assertThrows(FabricException.class, () -> fabric.domain(info).close());
            assertEquals(Errno.EACCES, ex.errno(), ex.getMessage());
            return ex;
        }
    }

    private static void assertMentions(final FabricException ex, final String... parts)
    {
        for (final String part : parts)
        {
            assertTrue(ex.getMessage().contains(part), "'" + part + "' missing in: " + ex.getMessage());
        }
    }

    @Test
    void shouldRefuseADirectoryThatGroupOrOthersCanUse() throws IOException
    {
        final Path open = Files.createDirectory(base.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertMentions(refusedDomain(open, "intruded"), open.toString(), "mode 0777", "mode 0700");

        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-x---"));
        assertMentions(refusedDomain(open, "intruded"), open.toString(), "mode 0750");
        assertEquals(0, ShmTests.ringFiles(open).size(), "nothing created in a refused directory");
    }

    @Test
    void shouldRefuseADirectoryOwnedByAnotherUser() throws IOException
    {
        final Path theirs;
        final long owner;
        if (0 == ShmFiles.UID)
        {
            // Root must not write into another user's directory, even one that looks private.
            theirs = Files.createDirectory(base.resolve("theirs"));
            Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwx------"));
            Files.setAttribute(theirs, "unix:uid", (int) OTHER_UID);
            owner = OTHER_UID;
        }
        else
        {
            theirs = Paths.get("/");
            owner = 0;
        }
        assertMentions(refusedDomain(theirs, "trespasser"), theirs.toString(), "owner uid " + owner,
            "required: owner uid " + ShmFiles.UID);
    }

    @Test
    void shouldRefuseASymbolicLinkInPlaceOfTheDirectory() throws IOException
    {
        final Path real = Files.createDirectory(base.resolve("real"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        final Path link = Files.createSymbolicLink(base.resolve("link"), real);
        assertMentions(refusedDomain(link, "linked"), link.toString(), "symbolic link");
    }

    @Test
    void shouldRefuseADirectoryWhoseParentOthersCanReplace() throws IOException
    {
        final Path shared = Files.createDirectory(base.resolve("shared"));
        final Path mine = Files.createDirectory(shared.resolve("mine"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.setAttribute(shared, "unix:mode", 0777);
        assertMentions(refusedDomain(mine, "orphan"), "ancestor " + shared, "mode 0777");

        // With the sticky bit (as /tmp and /dev/shm have) nobody else can rename or remove it: accepted.
        Files.setAttribute(shared, "unix:mode", 01777);
        System.setProperty(ShmConfiguration.DIR_PROP, mine.toString());
        final Info info = ShmTests.info(Progress.MANUAL, "sticky");
        try (Fabric fabric = Fabric.open(info))
        {
            fabric.domain(info).close();
        }
    }

    @Test
    void shouldRefuseASymbolicLinkInPlaceOfARingFile() throws IOException
    {
        // A live domain "peer" in another directory, and a link to its ring file in this one.
        final Path elsewhere = Files.createDirectory(base.resolve("elsewhere"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        final Path here = Files.createDirectory(base.resolve("here"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        System.setProperty(ShmConfiguration.DIR_PROP, elsewhere.toString());
        final Info peerInfo = ShmTests.info(Progress.MANUAL, "peer");
        try (Fabric fabric = Fabric.open(peerInfo))
        {
            final Domain peer = fabric.domain(peerInfo);
            final Path link = Files.createSymbolicLink(here.resolve("peer.ring"), elsewhere.resolve("peer.ring"));

            System.setProperty(ShmConfiguration.DIR_PROP, here.toString());
            final Domain domain = fabric.domain(ShmTests.info(Progress.MANUAL, "looker"));
            final AddressVector av = domain.addressVector(AvType.TABLE, 4);
            final FabricException ex = assertThrows(FabricException.class,
                () -> av.insert("fi_shm://peer".getBytes(StandardCharsets.US_ASCII)));
            assertEquals(Errno.EACCES, ex.errno(), ex.getMessage());
            assertMentions(ex, link.toString(), "symbolic link");

            // Nor is the name taken over through the link.
            assertMentions(refusedDomain(here, "peer"), link.toString(), "symbolic link");
            assertTrue(Files.isSymbolicLink(link), "the link is left alone");
            av.close();
            domain.close();
            peer.close();
        }
    }

    @Test
    void shouldRefuseAPeerRingFileThatGroupOrOthersCanAccess() throws IOException
    {
        final Info info = ShmTests.info(Progress.MANUAL, "loose");
        try (Fabric fabric = Fabric.open(info))
        {
            final Domain loose = fabric.domain(info);
            final Path ring = base.resolve("loose.ring");
            Files.setPosixFilePermissions(ring, PosixFilePermissions.fromString("rw-rw-rw-"));
            final Domain domain = fabric.domain(ShmTests.info(Progress.MANUAL, "careful"));
            final AddressVector av = domain.addressVector(AvType.TABLE, 4);
            final FabricException ex = assertThrows(FabricException.class,
                () -> av.insert("fi_shm://loose".getBytes(StandardCharsets.US_ASCII)));
            assertEquals(Errno.EACCES, ex.errno(), ex.getMessage());
            assertMentions(ex, ring.toString(), "mode 0666", "mode 0600");

            Files.setPosixFilePermissions(ring, PosixFilePermissions.fromString("rw-------"));
            assertEquals(0, av.insert("fi_shm://loose".getBytes(StandardCharsets.US_ASCII)), "0600: accepted");
            av.close();
            domain.close();
            loose.close();
        }
    }

    @Test
    void shouldNotReadFromAPeerPoolFileThatGroupOrOthersCanAccess() throws IOException
    {
        try (ShmPair p = new ShmPair(Progress.MANUAL, "-pool"))
        {
            final int size = 64 << 10;
            final AtomicBuffer block = p.domainA.allocateShared(size);
            final Path pool = ShmTests.transport(p.domainA).pool().path();
            Files.setPosixFilePermissions(pool, PosixFilePermissions.fromString("rw-r--r--"));
            final ShmDomainTransport b = ShmTests.transport(p.domainB);
            final long keyOfA = b.resolve(p.a.name());
            assertEquals(0, b.directAddress(keyOfA, block.addressOffset(), size), "a 0644 pool is not mapped");
            p.domainA.freeShared(block);
        }
    }

    @Test
    void shouldUseAPerUserOwnerOnlyDirectoryByDefault() throws IOException
    {
        System.clearProperty(ShmConfiguration.DIR_PROP);
        final Path dir = ShmConfiguration.directory();
        assertEquals("jfabric-" + ShmFiles.UID, dir.getFileName().toString());
        assertEquals(ShmFiles.UID, ((Number) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS))
            .longValue());
        assertEquals(0700, ((Number) Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS)).intValue() &
            0777);
    }
}
