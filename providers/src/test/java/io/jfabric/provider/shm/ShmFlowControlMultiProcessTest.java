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
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import io.jfabric.agent.FlowControl;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static io.jfabric.provider.shm.ShmTests.direct;
import static io.jfabric.provider.shm.ShmTests.one;
import static io.jfabric.provider.shm.ShmTests.post;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Flow control across processes (issue 10, section 1): a child process floods this process's domain with messages
 * nobody receives, beyond its credit, while another child's messages, RMA write, read and atomic to the same domain
 * complete; the flooding child is then killed and the bystander still gets through, and what the flooder had
 * delivered stays receivable.
 */
@Timeout(180)
class ShmFlowControlMultiProcessTest
{
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-flowmp-");
    }

    @AfterAll
    static void cleanup() throws IOException
    {
        System.clearProperty(FlowControl.CREDITS_PROP);
        ShmTests.deleteTree(dir);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldCompleteABystandersMessagesAndRmaWhileAnotherProcessFloodsAndAfterItIsKilled(final Progress progress)
        throws Exception
    {
        // 64 messages of credit: the flood of 1000 runs the flooder out of credit at once.
        System.setProperty(FlowControl.CREDITS_PROP, "64");
        final int n = NAMES.incrementAndGet();
        final Info info = ShmTests.info(progress, "flowmp-r" + n);
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 8);
            CompletionQueue cq = domain.completionQueue(4096, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final UnsafeBuffer region = direct(4096);
            try (MemoryRegion mr = domain.registerMemory(region, 0, 4096, Flags.REMOTE_READ | Flags.REMOTE_WRITE, 31);
                ShmChildProcess flooder = ShmChildProcess.start(dir, "flowmp-f" + n, progress, domain);
                ShmChildProcess bystander = ShmChildProcess.start(dir, "flowmp-b" + n, progress, domain))
            {
                final String me = new String(ep.name(), StandardCharsets.US_ASCII);
                final long floodAddr = av.insert(flooder.address.getBytes(StandardCharsets.US_ASCII));
                final long bystanderAddr = av.insert(bystander.address.getBytes(StandardCharsets.US_ASCII));
                final String fromFlooder = flooder.call("insert " + me, domain);
                final String fromBystander = bystander.call("insert " + me, domain);
                assertEquals("FIADDR 0", fromFlooder);
                assertEquals("FIADDR 0", fromBystander);

                assertEquals("FLOODED 1000", flooder.call("flood 0 1000 1000000", domain));
                bystanderRound(domain, ep, cq, bystander, bystanderAddr, region, mr, 1);

                flooder.kill();
                bystanderRound(domain, ep, cq, bystander, bystanderAddr, region, mr, 2);
                // What the flooder delivered (its credit's worth) is still there, in order.
                final UnsafeBuffer in = direct(16);
                for (int i = 0; i < 64; i++)
                {
                    final long tag = 1_000_000 + i;
                    post(() -> ep.trecv(in, 0, 16, floodAddr, tag, 0, tag), domain);
                    final CompletionEntry entry = one(cq, domain);
                    assertEquals(tag, entry.tag());
                    assertEquals(tag, in.getLong(0));
                    assertEquals(~tag, in.getLong(8));
                }
                bystanderRound(domain, ep, cq, bystander, bystanderAddr, region, mr, 3);
            }
        }
    }

    /**
     * Issue 10 (c): each incarnation of a peer name has its own flow-control account. A child sends its whole grant
     * (16 messages nobody receives yet) and is killed; a new child under the same name sends its own 16; this
     * process, which has not progressed meanwhile, then inserts the new child's address (mapping the new
     * incarnation) before its agent reads either batch. The first batch is the old incarnation's and must not be
     * charged to the new one (before the fix it was, and the new child's 16 messages were refused as over its
     * credit): all 32 are stored and received.
     */
    @Test
    void shouldChargeALeftoverMessageOfAKilledPeerToItsOwnIncarnationNotToTheRestartedOne() throws Exception
    {
        System.setProperty(FlowControl.CREDITS_PROP, "16");
        final int n = NAMES.incrementAndGet();
        final Info info = ShmTests.info(Progress.MANUAL, "flowmp-r" + n);
        final String childName = "flowmp-x" + n;
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 8);
            CompletionQueue cq = domain.completionQueue(4096, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final String me = new String(ep.name(), StandardCharsets.US_ASCII);
            // This process does not progress while the children send: their frames wait in its ring.
            try (ShmChildProcess first = ShmChildProcess.start(dir, childName, Progress.MANUAL))
            {
                assertEquals("FIADDR 0", first.call("insert " + me));
                for (int i = 0; i < 16; i++)
                {
                    assertEquals("DONE", first.call("sendone 0 64 " + (1000 + i)).split(" ")[0]);
                }
                first.kill();
            }
            try (ShmChildProcess second = ShmChildProcess.start(dir, childName, Progress.MANUAL))
            {
                assertEquals("FIADDR 0", second.call("insert " + me));
                for (int i = 0; i < 16; i++)
                {
                    assertEquals("DONE", second.call("sendone 0 64 " + (2000 + i)).split(" ")[0]);
                }
                // The application learns of the restart and inserts the name again before reading anything.
                final long addr = av.insert(second.address.getBytes(StandardCharsets.US_ASCII));
                assertEquals(0, addr);
                for (int i = 0; i < 500; i++)
                {
                    domain.progress();
                }
                final UnsafeBuffer in = direct(64);
                for (int batch = 1; batch <= 2; batch++)
                {
                    for (int i = 0; i < 16; i++)
                    {
                        final long tag = batch * 1000L + i;
                        post(() -> ep.trecv(in, 0, 64, AddressVector.ADDR_UNSPEC, tag, 0, tag), domain);
                        final CompletionEntry entry = one(cq, domain);
                        assertEquals(tag, entry.context(), "message " + tag + " was stored");
                        assertEquals(64, entry.len());
                    }
                }
            }
        }
    }

    /**
     * The bystander sends 20 tagged messages (received here by directed receives) and runs a write, a read and a
     * fetching add against this process's region.
     */
    private static void bystanderRound(
        final Domain domain, final Endpoint ep, final CompletionQueue cq, final ShmChildProcess bystander,
        final long bystanderAddr, final UnsafeBuffer region, final MemoryRegion mr, final int round)
    {
        final UnsafeBuffer in = direct(64);
        for (int i = 0; i < 20; i++)
        {
            final long tag = round * 1000L + i;
            post(() -> ep.trecv(in, 0, 64, bystanderAddr, tag, 0, tag), domain);
            assertEquals("DONE " + tag, doneOf(bystander.call("sendone 0 64 " + tag, domain), tag));
            final CompletionEntry entry = one(cq, domain);
            assertEquals(tag, entry.context());
            assertEquals(64, entry.len());
        }
        region.putLong(128 + 8, 100 * round);
        assertEquals("RMA " + (7000 + round) + " " + 100 * round,
            bystander.call("rma 0 " + mr.key() + " 128 " + (7000 + round), domain));
        assertEquals(7000 + round, region.getLong(128));
        assertEquals(100 * round + 1, region.getLong(136));
    }

    private static String doneOf(final String answer, final long tag)
    {
        // sendone answers "DONE <context>"; its context is its own, the tag is what we check on our side.
        return answer.startsWith("DONE ") ? "DONE " + tag : answer;
    }
}
