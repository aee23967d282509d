package io.jfabric.provider.shm;

import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Errno;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.Version;
import io.jfabric.Fabric;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Helpers of the shm tests: a private ring directory per test class, infos, buffers with patterns, completion
 * waits with deadlines that drive manual progress.
 */
final class ShmTests
{
    /** Every wait gives up after this long. */
    static final long DEADLINE_NS = 30_000_000_000L;
    /**
     * A child JVM's first line (its start, fabric and domain open) gives up after this long: on a loaded host (load
     * 30 on 2 cores) a child took more than {@link #DEADLINE_NS} to print READY.
     */
    static final long START_DEADLINE_NS = 120_000_000_000L;
    /** Sizes every op family is checked at: around the inject size, the eager threshold and 1 MiB + 3. */
    static final int[] SIZES = {0, 1, 63, 64, ShmProvider.INJECT_SIZE, ShmProvider.EAGER_THRESHOLD - 1,
        ShmProvider.EAGER_THRESHOLD, ShmProvider.EAGER_THRESHOLD + 1, (1 << 20) + 3};

    private ShmTests()
    {
    }

    /**
     * A fresh ring directory (under /dev/shm when possible) used by this JVM's shm domains from now on.
     */
    static Path useNewDirectory(final String prefix) throws IOException
    {
        final Path shm = Paths.get("/dev/shm");
        final Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ?
            Files.createTempDirectory(shm, prefix) : Files.createTempDirectory(prefix);
        System.setProperty(ShmConfiguration.DIR_PROP, dir.toString());
        return dir;
    }

    static void deleteTree(final Path dir) throws IOException
    {
        if (null == dir || !Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir))
        {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static List<String> ringFiles(final Path dir) throws IOException
    {
        try (Stream<Path> list = Files.list(dir))
        {
            return list.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static Info hints(final Progress progress)
    {
        return Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA | Flags.ATOMIC)
            .fabricAttr(FabricAttr.builder().provName(ShmProvider.NAME).build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build();
    }

    /**
     * The first shm info; with a name, that name as the source (FI_SOURCE).
     */
    static Info info(final Progress progress, final String name)
    {
        final List<Info> infos = null == name ? Fabric.getInfo(hints(progress)) :
            Fabric.getInfo(Version.CURRENT, name, null, Flags.SOURCE, hints(progress));
        return infos.get(0);
    }

    static UnsafeBuffer direct(final int length)
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, length)), 0, length);
    }

    static UnsafeBuffer pattern(final int length, final int seed)
    {
        final UnsafeBuffer buffer = direct(length);
        fill(buffer, 0, length, seed);
        return buffer;
    }

    static void fill(final UnsafeBuffer buffer, final int offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(offset + i, (byte) (seed + i * 31 + (i >>> 8)));
        }
    }

    static void assertPattern(final UnsafeBuffer buffer, final int offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            final byte expected = (byte) (seed + i * 31 + (i >>> 8));
            if (buffer.getByte(offset + i) != expected)
            {
                fail("byte " + i + " of " + length + " differs: " + buffer.getByte(offset + i) + " != " + expected);
            }
        }
    }

    static long crc(final UnsafeBuffer buffer, final int offset, final int length)
    {
        final CRC32 crc = new CRC32();
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        crc.update(bytes);
        return crc.getValue();
    }

    static void progress(final Domain... domains)
    {
        for (final Domain d : domains)
        {
            d.progress();
        }
        Thread.yield();
    }

    /**
     * Read exactly one successful completion within the deadline, driving the domains.
     */
    static CompletionEntry one(final CompletionQueue cq, final Domain... domains)
    {
        final CompletionEntry entry = new CompletionEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                return entry;
            }
            if (n == Errno.EAVAIL.negated())
            {
                final CompletionErrorEntry err = new CompletionErrorEntry();
                cq.readErr(err);
                fail("expected a completion, got error " + err.errno() + " context " + err.context());
            }
            if (n != Errno.EAGAIN.negated())
            {
                fail("cq.read returned " + n + " (" + Errno.strerror(n) + ")");
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("no completion before the deadline");
            }
            progress(domains);
        }
    }

    /**
     * Wait for an error entry and read it.
     */
    static CompletionErrorEntry error(final CompletionQueue cq, final Domain... domains)
    {
        final CompletionErrorEntry entry = new CompletionErrorEntry();
        final CompletionEntry ignored = new CompletionEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(ignored);
            if (n == Errno.EAVAIL.negated())
            {
                assertEquals(1, cq.readErr(entry));
                return entry;
            }
            if (n > 0)
            {
                fail("expected an error completion, got context " + ignored.context());
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("no error completion before the deadline");
            }
            progress(domains);
        }
    }

    /**
     * Post until the post is accepted (not -EAGAIN), driving progress.
     */
    static void post(final java.util.function.IntSupplier post, final Domain... domains)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        int rc;
        while ((rc = post.getAsInt()) == Errno.EAGAIN.negated())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("post kept returning EAGAIN");
            }
            progress(domains);
        }
        final int result = rc;
        assertEquals(0, result, () -> "post returned " + result + " (" + Errno.strerror(result) + ")");
    }

    /**
     * The shm transport of a domain (package-private in the runtime; tests only).
     */
    /**
     * The domain's agent (the runtime keeps it private; tests read its frame counters).
     *
     * @param domain a shm domain.
     * @return its agent.
     */
    static io.jfabric.agent.DomainAgent agent(final Domain domain)
    {
        try
        {
            final java.lang.reflect.Field field = Domain.class.getDeclaredField("agent");
            field.setAccessible(true);
            return (io.jfabric.agent.DomainAgent) field.get(domain);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    static ShmDomainTransport transport(final Domain domain)
    {
        try
        {
            final java.lang.reflect.Method method = Domain.class.getDeclaredMethod("transport");
            method.setAccessible(true);
            return (ShmDomainTransport) method.invoke(domain);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * A writer incarnation's lane into {@code reader}, created and announced in the reader's sender table the way a
     * writer does it (the caller claims records in it: a writer that dies before committing one).
     *
     * @param dir               the shm directory.
     * @param reader            the reader's name.
     * @param writer            the writer's name.
     * @param writerIncarnation the writer's incarnation.
     * @return the mapped lane (close it; the reader removes the file once the writer is dead and it is drained).
     */
    static ShmLaneFile announceLane(
        final java.nio.file.Path dir, final String reader, final String writer, final long writerIncarnation)
    {
        try (ShmRingFile file = ShmRingFile.openPeer(dir, reader))
        {
            final ShmLaneFile lane = ShmLaneFile.writer(dir, reader, file.incarnation(), writer, writerIncarnation,
                file.capacity());
            if (file.claimSlot(writerIncarnation, writer.getBytes(java.nio.charset.StandardCharsets.US_ASCII)) < 0)
            {
                throw new IllegalStateException("no slot");
            }
            return lane;
        }
    }
}
