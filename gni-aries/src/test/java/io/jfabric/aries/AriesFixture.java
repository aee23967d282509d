package io.jfabric.aries;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A deterministic emulated system for tests: nodes on one in-JVM hub sharing a directory in a temporary folder,
 * stepped by the test thread only. Every wait is bounded by a step count (a watchdog), never by time.
 */
final class AriesFixture implements AutoCloseable
{
    static final int PTAG = 10;
    static final int COOKIE = 0x0A0B_0001;
    static final int OTHER_PTAG = 11;
    static final int OTHER_COOKIE = 0x0C0D_0002;
    static final int MAX_STEPS = 100_000;

    final Path dir;
    final NodeDirectory directory;
    final JobRegistry jobs = new JobRegistry().register(COOKIE, PTAG).register(OTHER_COOKIE, OTHER_PTAG);
    final InJvmWire.Hub hub;
    final List<AriesNode> nodes = new ArrayList<>();

    AriesFixture()
    {
        this(InJvmWire.DEFAULT_RING_CAPACITY);
    }

    AriesFixture(final int ringCapacity)
    {
        hub = new InJvmWire.Hub(ringCapacity);
        try
        {
            dir = Files.createTempDirectory("aries-test");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        directory = new NodeDirectory(dir);
    }

    AriesNode node(final int device)
    {
        return node(device, null);
    }

    AriesNode node(final int device, final FaultPlan faults)
    {
        final AriesNode node = AriesNode.open(new AriesNode.Context()
            .deviceAddress(device).directory(directory).jobs(jobs).wire(hub.open()).faults(faults).maxChunk(4096));
        nodes.add(node);
        return node;
    }

    static GniNic nic(final AriesNode node, final int instId)
    {
        return node.cdmCreate(instId, PTAG, COOKIE, Cdm.MODE_ERR_NO_KILL).attach(0);
    }

    /**
     * Run one duty cycle of every node.
     */
    int step()
    {
        int work = 0;
        for (final AriesNode node : nodes)
        {
            work += node.doWork();
        }
        return work;
    }

    /**
     * Step until nothing moves for a few cycles.
     */
    void quiesce()
    {
        int idle = 0;
        for (int i = 0; i < MAX_STEPS; i++)
        {
            idle = 0 == step() ? idle + 1 : 0;
            if (idle >= 3)
            {
                return;
            }
        }
        fail("the system did not quiesce in " + MAX_STEPS + " steps");
    }

    void await(final BooleanSupplier condition, final String what)
    {
        for (int i = 0; i < MAX_STEPS; i++)
        {
            if (condition.getAsBoolean())
            {
                return;
            }
            step();
        }
        fail("watchdog: " + what + " not reached in " + MAX_STEPS + " steps");
    }

    /**
     * Wait for the next event of a CQ and return its status code; the event is in {@code cq.event()}.
     */
    int nextEvent(final GniCq cq)
    {
        for (int i = 0; i < MAX_STEPS; i++)
        {
            final int rc = cq.getEvent();
            if (GniRc.NOT_DONE != rc)
            {
                return rc;
            }
            step();
        }
        fail("watchdog: no event in " + MAX_STEPS + " steps");
        return -1;
    }

    /**
     * A page-aligned direct buffer.
     */
    static UnsafeBuffer memory(final int length)
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, MemHandle.PAGE_SIZE));
    }

    static MemHandle register(final GniNic nic, final UnsafeBuffer buffer, final int flags)
    {
        final MemHandle handle = new MemHandle();
        assertEquals(GniRc.SUCCESS, nic.memRegister(buffer, 0, buffer.capacity(), null, flags, 0, handle));
        return handle;
    }

    static PostDescriptor put(
        final TransactionKind type, final UnsafeBuffer local, final MemHandle localHandle, final int localOffset,
        final UnsafeBuffer remote, final MemHandle remoteHandle, final int remoteOffset, final int length)
    {
        final PostDescriptor d = new PostDescriptor();
        d.type = type;
        d.localAddr = local.addressOffset() + localOffset;
        d.localMemHandle.set(localHandle);
        d.remoteAddr = remote.addressOffset() + remoteOffset;
        d.remoteMemHandle.set(remoteHandle);
        d.length = length;
        return d;
    }

    @Override
    public void close()
    {
        for (final AriesNode node : nodes)
        {
            node.close();
        }
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final IOException ignore)
        {
            // best effort
        }
    }
}
