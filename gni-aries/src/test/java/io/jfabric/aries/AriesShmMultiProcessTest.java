package io.jfabric.aries;

import io.jfabric.provider.gni.ChildOutput;
import io.jfabric.provider.shm.ShmConfiguration;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Two processes, each with its own emulated node, over the shm wire: this JVM is node 1 (stepped by the test
 * thread), a child JVM is node 2 (its NIC engine on its own thread). SMSG both ways with credits, a 1 MiB BTE PUT
 * and GET and AMOs, with every byte verified on the other side.
 */
@Timeout(300) // a child JVM on a loaded host: the 120 s waits below are the watchdogs, not the default 60 s
class AriesShmMultiProcessTest
{
    private static final long DEADLINE_NS = 120_000_000_000L;
    private static final String[] OPENS = {
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED"};

    private Path root;
    private String previousShmDir;
    private Process child;
    private OutputStream childIn;
    private ChildOutput lines;
    private AriesNode node;

    @BeforeEach
    void setUp() throws IOException
    {
        root = Files.createTempDirectory("aries-shm");
        previousShmDir = System.getProperty(ShmConfiguration.DIR_PROP);
        System.setProperty(ShmConfiguration.DIR_PROP, root.resolve("shm").toString());
    }

    @AfterEach
    void tearDown() throws Exception
    {
        if (null != child)
        {
            child.destroyForcibly().waitFor();
        }
        if (null != node)
        {
            node.close();
        }
        if (null == previousShmDir)
        {
            System.clearProperty(ShmConfiguration.DIR_PROP);
        }
        else
        {
            System.setProperty(ShmConfiguration.DIR_PROP, previousShmDir);
        }
        try (Stream<Path> files = Files.walk(root))
        {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    @Test
    void shouldExchangeSmsgPutGetAndAmoWithChildProcess() throws Exception
    {
        final NodeDirectory directory = new NodeDirectory(root.resolve("directory"));
        final JobRegistry jobs = new JobRegistry().register(AriesFixture.COOKIE, AriesFixture.PTAG);
        node = AriesNode.open(new AriesNode.Context().deviceAddress(1).directory(directory).jobs(jobs)
            .wire(ShmAriesWire.open("aries-parent")));
        final GniNic nic = node.cdmCreate(1, AriesFixture.PTAG, AriesFixture.COOKIE, Cdm.MODE_ERR_NO_KILL).attach(0);
        final GniCq tx = nic.cqCreate(128);
        final GniCq rx = nic.cqCreate(1024);
        final GniEp ep = nic.epCreate(tx);
        assertEquals(GniRc.SUCCESS, ep.bind(2, 2));
        final SmsgAttr local = new SmsgAttr();
        local.rxCq = rx;
        assertEquals(GniRc.SUCCESS, ep.smsgInit(local, new SmsgAttr()));

        startChild(directory.root(), "aries-child");
        final String[] ready = await("READY").split(" ");
        final long remoteAddress = Long.parseLong(ready[1]);
        final MemHandle remoteHandle = new MemHandle().set(Long.parseLong(ready[2]), Long.parseLong(ready[3]));

        // 1 MiB BTE PUT, verified by the child's CRC of its region.
        final int length = AriesChild.REGION;
        final UnsafeBuffer source = AriesFixture.memory(length);
        final UnsafeBuffer sink = AriesFixture.memory(length);
        for (int i = 0; i < length; i += 8)
        {
            source.putLong(i, i * 0x9E37_79B9_7F4A_7C15L);
        }
        final MemHandle sourceHandle = AriesFixture.register(nic, source, 0);
        final MemHandle sinkHandle = AriesFixture.register(nic, sink, 0);
        final PostDescriptor put = new PostDescriptor();
        put.type = TransactionKind.RDMA_PUT;
        put.localAddr = source.addressOffset();
        put.localMemHandle.set(sourceHandle);
        put.remoteAddr = remoteAddress;
        put.remoteMemHandle.set(remoteHandle);
        put.length = length;
        assertEquals(GniRc.SUCCESS, ep.postRdma(put));
        assertEquals(GniRc.SUCCESS, nextEvent(tx));
        final byte[] bytes = new byte[length];
        source.getBytes(0, bytes);
        final CRC32 crc = new CRC32();
        crc.update(bytes);
        command("CRC 0 " + length);
        assertEquals("CRC " + crc.getValue(), await("CRC"));

        // GET it back.
        final PostDescriptor get = new PostDescriptor();
        get.type = TransactionKind.RDMA_GET;
        get.localAddr = sink.addressOffset();
        get.localMemHandle.set(sinkHandle);
        get.remoteAddr = remoteAddress;
        get.remoteMemHandle.set(remoteHandle);
        get.length = length;
        assertEquals(GniRc.SUCCESS, ep.postRdma(get));
        assertEquals(GniRc.SUCCESS, nextEvent(tx));
        for (int i = 0; i < length; i += 8)
        {
            assertEquals(source.getLong(i), sink.getLong(i), "byte " + i);
        }

        // AMO: fetch-add on the child's first word, then read it there.
        final PostDescriptor amo = new PostDescriptor();
        amo.type = TransactionKind.AMO;
        amo.amoCmd = AmoCmd.FIADD;
        amo.remoteAddr = remoteAddress + 64;
        amo.remoteMemHandle.set(remoteHandle);
        amo.localAddr = sink.addressOffset();
        amo.localMemHandle.set(sinkHandle);
        amo.firstOperand = 1000;
        assertEquals(GniRc.SUCCESS, ep.postFma(amo));
        assertEquals(GniRc.SUCCESS, nextEvent(tx));
        assertEquals(source.getLong(64), sink.getLong(0));
        command("LONG 64");
        assertEquals("LONG " + (source.getLong(64) + 1000), await("LONG"));

        // SMSG: 300 messages echoed back, more than the 64 credits, each verified in order.
        final int messages = 300;
        command("ECHO " + messages);
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        int sent = 0;
        int received = 0;
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (received < messages)
        {
            if (sent < messages)
            {
                message.putInt(0, sent);
                message.putLong(8, sent * 31L);
                if (GniRc.SUCCESS == ep.smsgSendWTag(null, 0, 0, message, 0, 64, sent, 10 + sent % 5))
                {
                    sent++;
                }
            }
            node.doWork();
            int rc;
            while (GniRc.NOT_DONE != (rc = tx.getEvent()))
            {
                assertEquals(GniRc.SUCCESS, rc);
            }
            while (GniRc.NOT_DONE != rx.getEvent())
            {
                // remote events: the mailbox is drained below on every pass
            }
            while (GniRc.SUCCESS == ep.smsgGetNextWTag(GniEp.SMSG_ANY_TAG))
            {
                assertEquals(64, ep.smsgMessage().capacity());
                assertEquals(received, ep.smsgMessage().getInt(0));
                assertEquals(received * 31L, ep.smsgMessage().getLong(8));
                assertEquals(10 + received % 5, ep.smsgTag());
                assertEquals(GniRc.SUCCESS, ep.smsgRelease());
                received++;
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("watchdog: sent " + sent + " received " + received + " " + node.stats());
            }
        }
        assertEquals("ECHOED " + messages, await("ECHOED"));
        assertTrue(node.stats().creditStalls() >= 0);
        assertEquals(messages, node.stats().posts(TransactionKind.SMSG));
        command("EXIT");
        assertEquals("BYE", await("BYE"));
        assertTrue(child.waitFor(DEADLINE_NS, TimeUnit.NANOSECONDS), "watchdog: the child did not exit");
        assertEquals(0, child.exitValue());

        // The peer process is gone: a transaction towards it completes with a non-recoverable error, never hangs.
        assertEquals(GniRc.SUCCESS, ep.postRdma(put));
        assertEquals(GniRc.TRANSACTION_ERROR, nextEvent(tx));
        assertEquals(false, GniCqEntry.recoverable(tx.event()));
    }

    private int nextEvent(final GniCq cq)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final int rc = cq.getEvent();
            if (GniRc.NOT_DONE != rc)
            {
                return rc;
            }
            node.doWork();
            Thread.yield();
            if (System.nanoTime() - deadline > 0)
            {
                fail("watchdog: no event " + node.stats());
            }
        }
    }

    private void startChild(final Path directory, final String name) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.addAll(List.of(OPENS));
        command.add("-D" + ShmConfiguration.DIR_PROP + "=" + System.getProperty(ShmConfiguration.DIR_PROP));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(AriesChild.class.getName());
        command.add(directory.toString());
        command.add(name);
        final Path logs = Paths.get("target", "aries-children");
        Files.createDirectories(logs);
        child = new ProcessBuilder(command).redirectError(logs.resolve(name + "-" + System.nanoTime() + ".log")
            .toFile()).start();
        childIn = child.getOutputStream();
        lines = new ChildOutput(child, name);
    }

    private void command(final String line) throws IOException
    {
        childIn.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        childIn.flush();
    }

    /**
     * The child's next line, which must start with {@code prefix}; drives this node meanwhile.
     */
    private String await(final String prefix) throws InterruptedException
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true)
        {
            final String line = lines.poll(0, TimeUnit.NANOSECONDS);
            if (null != line)
            {
                assertTrue(line.startsWith(prefix), "child said: " + line);
                return line;
            }
            node.doWork();
            Thread.yield();
            if (System.nanoTime() - deadline > 0)
            {
                fail("watchdog: child did not answer " + prefix);
            }
        }
    }
}
