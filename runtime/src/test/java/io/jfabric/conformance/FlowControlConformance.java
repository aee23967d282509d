package io.jfabric.conformance;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import io.jfabric.agent.FlowControl;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Drive.one;
import static io.jfabric.conformance.Drive.post;
import static io.jfabric.conformance.Drive.progress;
import static io.jfabric.conformance.Pair.DEADLINE_NS;
import static io.jfabric.conformance.Pair.direct;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Back-pressure never stalls a bystander (issue 10, section 1; CONFORMANCE.md "Unexpected messages" and "Back-pressure
 * never stalls a bystander"), on every provider of the suite and both progress modes: a
 * receiver stores what its peers' credits allow, one peer's unmatched flood delays no other peer's messages, RMA or
 * atomics, a posted receive that matches an arrival always gets it, and a flooding peer's death blocks nobody.
 */
@Timeout(120)
public abstract class FlowControlConformance extends Conformance
{
    private static final int SMALL = 16;
    /** Payload of the 64k test: 64k such frames are more than a 16 MiB shm request ring holds. */
    private static final int FLOOD_SIZE = 256;

    /**
     * @param factory the provider under test.
     */
    protected FlowControlConformance(final PairFactory factory)
    {
        super(factory);
    }

    @AfterEach
    void clearProperties()
    {
        System.clearProperty(FlowControl.CREDITS_PROP);
    }

    private static UnsafeBuffer message(final long value)
    {
        final UnsafeBuffer out = direct(SMALL);
        out.putLong(0, value);
        out.putLong(8, ~value);
        return out;
    }

    /**
     * tinject {@code count} small messages tagged {@code tagBase + i} (payload: the tag) from node {@code from} to
     * node {@code to}, retrying {@code -EAGAIN} while driving progress.
     */
    private static void inject(final FlowNet net, final int from, final int to, final long tagBase, final int count)
    {
        inject(net, from, to, tagBase, count, SMALL);
    }

    private static void inject(
        final FlowNet net, final int from, final int to, final long tagBase, final int count, final int size)
    {
        final UnsafeBuffer out = direct(size);
        for (int i = 0; i < count; i++)
        {
            final long tag = tagBase + i;
            out.putLong(0, tag);
            out.putLong(8, ~tag);
            if (size > SMALL)
            {
                out.putLong(size - 8, tag);
            }
            post(() -> net.eps[from].tinject(out, 0, size, to, tag), net.open());
        }
    }

    private static void assertMessage(final UnsafeBuffer in, final long tag, final CompletionEntry entry)
    {
        assertMessage(in, tag, entry, SMALL);
    }

    private static void assertMessage(
        final UnsafeBuffer in, final long tag, final CompletionEntry entry, final int size)
    {
        assertEquals(tag, entry.tag(), "tag");
        assertEquals(size, entry.len(), "length");
        assertEquals(tag, in.getLong(0), "payload");
        assertEquals(~tag, in.getLong(8), "payload");
        if (size > SMALL)
        {
            assertEquals(tag, in.getLong(size - 8), "payload end");
        }
    }

    /**
     * Receive tag {@code tag} at node 0 from {@code source} (or any source) into a fresh buffer and check it.
     */
    private static void receive(final FlowNet net, final long source, final long tag)
    {
        final UnsafeBuffer in = direct(SMALL);
        post(() -> net.eps[0].trecv(in, 0, SMALL, source, tag, 0, tag), net.open());
        final CompletionEntry entry = one(net.rxCqs[0], net.open());
        assertEquals(tag, entry.context(), "context");
        assertMessage(in, tag, entry);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldCompleteAReceiveForTheLastOf129UnexpectedTaggedMessages(final Progress progress)
    {
        try (FlowNet net = new FlowNet(factory, progress, 2, 4096))
        {
            inject(net, 1, 0, 0, 129);
            // The last one first: it can only arrive once all 128 before it are stored.
            receive(net, 1, 128);
            for (int tag = 0; tag < 128; tag++)
            {
                receive(net, 1, tag);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    protected void shouldReceive64kUnexpectedMessagesInReverseTagOrderInWindowsOf16(final Progress progress)
    {
        final int messages = 65536;
        final int window = 16;
        try (FlowNet net = new FlowNet(factory, progress, 2, 4096))
        {
            // Every send is posted before any receive: the receiver holds up to 64k unexpected messages.
            inject(net, 1, 0, 0, messages, FLOOD_SIZE);
            final UnsafeBuffer[] in = new UnsafeBuffer[window];
            for (int k = 0; k < window; k++)
            {
                in[k] = direct(FLOOD_SIZE);
            }
            final CompletionEntry entry = new CompletionEntry();
            for (int base = 0; base < messages; base += window)
            {
                for (int k = window - 1; k >= 0; k--)
                {
                    final int slot = k;
                    final long tag = base + k;
                    post(() -> net.eps[0].trecv(in[slot], 0, FLOOD_SIZE, AddressVectorAny.ANY, tag, 0, slot),
                        net.open());
                }
                for (int done = 0; done < window; done++)
                {
                    final CompletionEntry e = one(net.rxCqs[0], net.open());
                    final int slot = (int) e.context();
                    assertMessage(in[slot], base + slot, e, FLOOD_SIZE);
                }
            }
            assertEquals(Errno.EAGAIN.negated(), net.rxCqs[0].read(entry));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldKeepOtherPeersMessagesRmaAndAtomicsFlowingWhileOnePeerFloodsUnmatchedMessages(final Progress progress)
    {
        // A small grant, so that the flood runs the flooder out of credit: its sends wait at the flooder.
        System.setProperty(FlowControl.CREDITS_PROP, "64");
        try (FlowNet net = new FlowNet(factory, progress, 4, 4096))
        {
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = net.domains[0].registerMemory(target, 0, 4096,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, 21))
            {
                // Nodes 1 and 2 flood node 0 with messages nobody receives (N-1 floods: 300 each, 1_000_000+).
                inject(net, 1, 0, 1_000_000, 300);
                inject(net, 2, 0, 2_000_000, 300);
                for (int round = 0; round < 3; round++)
                {
                    bystanderRound(net, mr, target, round);
                }
                // The flooders' messages are all still there, in order, for whoever receives them.
                for (int i = 0; i < 300; i++)
                {
                    receive(net, 1, 1_000_000 + i);
                }
                // A flooder goes away with sends still waiting for credit: nobody else notices.
                net.close(2);
                bystanderRound(net, mr, target, 3);
                for (int i = 0; i < 64; i++)
                {
                    receive(net, 2, 2_000_000 + i);
                }
                bystanderRound(net, mr, target, 4);
            }
        }
    }

    /**
     * Node 3 sends node 0 a few tagged messages (received by directed receives) and runs an RMA write, a read and
     * a fetching atomic against node 0's region; all complete.
     */
    private static void bystanderRound(final FlowNet net, final MemoryRegion mr, final UnsafeBuffer target,
        final int round)
    {
        final Domain[] open = net.open();
        final long tagBase = 3_000_000 + round * 100L;
        for (int i = 0; i < 20; i++)
        {
            final UnsafeBuffer out = message(tagBase + i);
            final long tag = tagBase + i;
            post(() -> net.eps[3].tsend(out, 0, SMALL, 0, tag, tag), open);
            receive(net, 3, tag);
            assertEquals(tag, one(net.txCqs[3], open).context());
        }
        final UnsafeBuffer source = message(round + 7);
        post(() -> net.eps[3].write(source, 0, SMALL, 0, 64, mr.key(), 1), open);
        assertEquals(1, one(net.txCqs[3], open).context());
        assertEquals(round + 7, target.getLong(64));
        final UnsafeBuffer back = direct(SMALL);
        post(() -> net.eps[3].read(back, 0, SMALL, 0, 64, mr.key(), 2), open);
        assertEquals(2, one(net.txCqs[3], open).context());
        assertEquals(round + 7, back.getLong(0));
        target.putLong(256, 40);
        final UnsafeBuffer operand = direct(8);
        operand.putLong(0, 2);
        final UnsafeBuffer old = direct(8);
        post(() -> net.eps[3].fetchAtomic(operand, 0, 1, old, 0, 0, 256, mr.key(), AtomicDatatype.UINT64,
            AtomicOp.SUM, 3), open);
        assertEquals(3, one(net.txCqs[3], open).context());
        assertEquals(40, old.getLong(0));
        assertEquals(42, target.getLong(256));
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldDeliverEveryMessagePromptlyToDirectedReceivesWithAReceiveCqOfSizeOne(final Progress progress)
    {
        final int perSender = 3000;
        try (FlowNet net = new FlowNet(factory, progress, 3, 1))
        {
            final Domain[] open = net.open();
            final UnsafeBuffer in = direct(SMALL);
            final UnsafeBuffer[] out = {direct(SMALL), direct(SMALL)};
            final int[] sent = new int[2];
            final CompletionEntry entry = new CompletionEntry();
            final long deadline = System.nanoTime() + DEADLINE_NS;
            for (int i = 0; i < 2 * perSender; i++)
            {
                final int sender = 1 + (i & 1);
                final long tag = i >> 1;
                // Both senders run ahead as far as they can; the receiver takes one message at a time.
                for (int s = 0; s < 2; s++)
                {
                    while (sent[s] < perSender)
                    {
                        out[s].putLong(0, sent[s]);
                        out[s].putLong(8, ~(long) sent[s]);
                        if (0 != net.eps[1 + s].tinject(out[s], 0, SMALL, 0, sent[s]))
                        {
                            break;
                        }
                        sent[s]++;
                    }
                }
                int rc;
                while ((rc = net.eps[0].trecv(in, 0, SMALL, sender, tag, 0, i)) == Errno.EAGAIN.negated())
                {
                    progress(open);
                }
                assertEquals(0, rc);
                while (net.rxCqs[0].read(entry) != 1)
                {
                    if (System.nanoTime() - deadline > 0)
                    {
                        fail("stuck at message " + i + " of " + 2 * perSender);
                    }
                    progress(open);
                }
                assertEquals(i, entry.context());
                assertMessage(in, tag, entry);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldDeliverEverySendInOrderWhenTheReceiverConsumesSlowerThanTheSenderPosts(final Progress progress)
    {
        // A grant of 8 messages against 2000 sends with completions: the sender parks what it has no credit for
        // (its posts answer -EAGAIN at the transmit queue size); every message still arrives, in order, and every
        // send completes, in order.
        System.setProperty(FlowControl.CREDITS_PROP, "8");
        try (FlowNet net = new FlowNet(factory, progress, 2, 4096))
        {
            final Domain[] open = net.open();
            final int count = 2000;
            final UnsafeBuffer out = direct(SMALL * count);
            int posted = 0;
            int sendsDone = 0;
            int received = 0;
            final UnsafeBuffer in = direct(SMALL);
            boolean receivePosted = false;
            final CompletionEntry entry = new CompletionEntry();
            final long deadline = System.nanoTime() + DEADLINE_NS;
            while (received < count || sendsDone < count)
            {
                while (posted < count)
                {
                    out.putLong(posted * SMALL, posted);
                    out.putLong(posted * SMALL + 8, ~(long) posted);
                    final int rc = net.eps[1].tsend(out, posted * SMALL, SMALL, 0, posted, posted);
                    if (rc == Errno.EAGAIN.negated())
                    {
                        break;
                    }
                    assertEquals(0, rc);
                    posted++;
                }
                while (net.txCqs[1].read(entry) == 1)
                {
                    assertEquals(sendsDone++, entry.context(), "sends complete in order");
                }
                if (!receivePosted && received < count)
                {
                    final long tag = received;
                    receivePosted = 0 == net.eps[0].trecv(in, 0, SMALL, 1, tag, 0, tag);
                }
                if (receivePosted && net.rxCqs[0].read(entry) == 1)
                {
                    assertMessage(in, received, entry);
                    received++;
                    receivePosted = false;
                }
                if (System.nanoTime() - deadline > 0)
                {
                    fail("stuck: posted " + posted + ", sends done " + sendsDone + ", received " + received);
                }
                progress(open);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldRefuseWritesWithRemoteDataBeyondTheTargetCqWithEagainAndStallNobody(final Progress progress)
    {
        // The target's receive CQ holds 2: remote CQ data completions count against it like receives, so the third
        // write is refused at once (target untouched) instead of waiting in the ring in front of everyone else.
        try (FlowNet net = new FlowNet(factory, progress, 3, 2))
        {
            final Domain[] open = net.open();
            final UnsafeBuffer target = direct(4096);
            try (MemoryRegion mr = net.domains[0].registerMemory(target, 0, 4096, Flags.REMOTE_WRITE, 22))
            {
                for (int i = 0; i < 6; i++)
                {
                    final UnsafeBuffer source = message(100 + i);
                    final int context = i;
                    post(() -> net.eps[1].writedata(source, 0, SMALL, 500 + context, 0, 64L * context, mr.key(),
                        context), open);
                    if (i < 2)
                    {
                        assertEquals(i, one(net.txCqs[1], open).context());
                        assertEquals(100 + i, target.getLong(64 * i));
                    }
                    else
                    {
                        final io.jfabric.CompletionErrorEntry err = Drive.error(net.txCqs[1], open);
                        assertEquals(i, err.context());
                        assertEquals(Errno.EAGAIN, err.errno());
                        assertEquals(0, target.getLong(64 * i), "a refused write leaves the target untouched");
                    }
                }
                // Another peer's message gets through once the target reads what it was told.
                for (int i = 0; i < 2; i++)
                {
                    assertEquals(500 + i, one(net.rxCqs[0], open).data());
                }
                final UnsafeBuffer out = message(9);
                post(() -> net.eps[2].tsend(out, 0, SMALL, 0, 9, 9), open);
                receive(net, 2, 9);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldKeepOtherPeersRmaFlowingWhileMultiRecvCompletionsFillTheReceiveCq(final Progress progress)
    {
        // Node 0's receive CQ holds 2 and its multi-recv buffer reserves one completion: the later segments'
        // completions fill the CQ while the application does not read it. The messages that find it full wait for
        // node 0's endpoint alone; node 2's RMA write to node 0 still completes, and node 0 then gets every message,
        // in order.
        try (FlowNet net = new FlowNet(factory, progress, 3, 2))
        {
            final Domain[] open = net.open();
            final UnsafeBuffer target = direct(64);
            try (MemoryRegion mr = net.domains[0].registerMemory(target, 0, 64, Flags.REMOTE_WRITE, 33))
            {
                final UnsafeBuffer big = direct(4096);
                post(() -> net.eps[0].recvmsg(new io.jfabric.Message().buffer(big, 0, 4096)
                    .addr(AddressVectorAny.ANY).context(90), Flags.MULTI_RECV), open);
                final int count = 6;
                for (int i = 0; i < count; i++)
                {
                    final UnsafeBuffer out = message(300 + i);
                    final int context = i;
                    post(() -> net.eps[1].send(out, 0, SMALL, 0, context), open);
                    assertEquals(i, one(net.txCqs[1], open).context());
                }
                final UnsafeBuffer source = message(4242);
                post(() -> net.eps[2].write(source, 0, SMALL, 0, 0, mr.key(), 7), open);
                assertEquals(7, one(net.txCqs[2], open).context(), "the write is not held behind node 1's messages");
                assertEquals(4242, target.getLong(0));
                for (int i = 0; i < count; i++)
                {
                    final CompletionEntry entry = one(net.rxCqs[0], open);
                    assertEquals(90, entry.context());
                    assertEquals(SMALL, entry.len());
                    assertEquals(big.addressOffset() + (long) SMALL * i, entry.buf(), "message " + i + " in order");
                    assertEquals(300 + i, big.getLong(SMALL * i));
                }
            }
        }
    }

    @Test
    protected void shouldKeepSendingToOtherPeersWhileRmaWaitsForAStoppedPeersFullRing()
    {
        // Node 0 stops progressing (MANUAL, never driven): node 1's writes to it fill its inbound ring. Node 1's
        // message to node 2, posted after them, must still go out and complete; once node 0 reads again, every write
        // lands and completes in posting order, the last one's bytes last (write-after-write order kept).
        final int size = 128 * 1024;
        final int writes = 160;
        try (FlowNet net = new FlowNet(factory, Progress.MANUAL, 3, 64))
        {
            final Domain[] running = {net.domains[1], net.domains[2]};
            final UnsafeBuffer target = direct(size);
            try (MemoryRegion mr = net.domains[0].registerMemory(target, 0, size, Flags.REMOTE_WRITE, 31))
            {
                final UnsafeBuffer ones = direct(size);
                final UnsafeBuffer twos = direct(size);
                ones.setMemory(0, size, (byte) 1);
                twos.setMemory(0, size, (byte) 2);
                for (int i = 0; i < writes; i++)
                {
                    final UnsafeBuffer source = i == writes - 1 ? twos : ones;
                    final int context = i;
                    post(() -> net.eps[1].write(source, 0, size, 0, 0, mr.key(), context), running);
                }
                final UnsafeBuffer out = message(7);
                post(() -> net.eps[1].tsend(out, 0, SMALL, 2, 7, 1_000_000), running);
                final UnsafeBuffer in = direct(SMALL);
                post(() -> net.eps[2].trecv(in, 0, SMALL, 1, 7, 0, 7), running);
                assertMessage(in, 7, one(net.rxCqs[2], running));
                assertEquals(1_000_000, one(net.txCqs[1], running).context(), "the bystander's send completes first");
                assertEquals(0, target.getByte(0), "node 0 has read nothing yet");

                final Domain[] all = net.open();
                for (int i = 0; i < writes; i++)
                {
                    assertEquals(i, one(net.txCqs[1], all).context(), "writes complete in posting order");
                }
                assertEquals(2, target.getByte(0));
                assertEquals(2, target.getByte(size - 1));
            }
        }
    }

    /**
     * Issue 10 §1, "the sender sees back-pressure as -EAGAIN at post or a later completion, never as a stall of
     * others": a sender with a grant of 8 keeps posting sends its receiver does not match until a post answers
     * {@code -EAGAIN} (it never blocks); meanwhile a third node's message to the same receiver arrives; once the
     * receiver takes them, every waiting send is delivered and completes, in order.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldAnswerEagainAtPostBeyondTheGrantAndStillDeliverAnotherPeersMessage(final Progress progress)
    {
        System.setProperty(FlowControl.CREDITS_PROP, "8");
        try (FlowNet net = new FlowNet(factory, progress, 3, 4096))
        {
            final Domain[] open = net.open();
            final long deadline = System.nanoTime() + DEADLINE_NS;
            int posted = 0;
            while (true)
            {
                final int rc = net.eps[1].tsend(message(1000 + posted), 0, SMALL, 0, 1000 + posted, posted);
                if (Errno.EAGAIN.negated() == rc)
                {
                    break;
                }
                assertEquals(0, rc, "post " + posted);
                posted++;
                if (0 == posted % 64)
                {
                    progress(open);
                }
                if (System.nanoTime() - deadline > 0)
                {
                    fail("no -EAGAIN after " + posted + " sends beyond a grant of 8");
                }
            }
            final int waiting = posted;
            assertTrue(waiting >= 8, "the grant's 8 sends at least: " + waiting);
            for (int i = 0; i < 20; i++)
            {
                progress(open);
            }
            // Another peer is not held back by the waiting sends.
            post(() -> net.eps[2].tsend(message(7), 0, SMALL, 0, 7, 77), open);
            receive(net, 2, 7);
            assertEquals(77, one(net.txCqs[2], open).context());
            // The receiver takes the waiting sends: each is delivered and completes, in order.
            for (int i = 0; i < waiting; i++)
            {
                receive(net, 1, 1000 + i);
            }
            for (int i = 0; i < waiting; i++)
            {
                assertEquals(i, one(net.txCqs[1], open).context(), "sends complete in order");
            }
        }
    }

    /**
     * {@code FI_ADDR_UNSPEC} without importing the runtime's AddressVector into every line above.
     */
    private static final class AddressVectorAny
    {
        static final long ANY = io.jfabric.AddressVector.ADDR_UNSPEC;
    }
}
