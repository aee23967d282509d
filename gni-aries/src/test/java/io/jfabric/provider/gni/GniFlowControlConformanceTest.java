package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Progress;
import io.jfabric.conformance.FlowControlConformance;
import io.jfabric.conformance.FlowNet;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Drive.one;
import static io.jfabric.conformance.Drive.post;
import static io.jfabric.conformance.Drive.progress;
import static io.jfabric.conformance.Pair.direct;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FlowControlConformance} over the {@code gni} provider. Overridden by their gni forms: the 64k-message flood,
 * whose messages are 256-byte tinjects ({@link GniDifferences#INJECT_64}: {@code -EMSGSIZE} at post, nothing sent),
 * runs with 64-byte tinjects, the most gni injects; and the writes to a stopped target
 * ({@link GniDifferences#ONE_SIDED}), which the target's NIC lands, and which complete, without the target's progress.
 */
class GniFlowControlConformanceTest extends FlowControlConformance
{
    private static final int FLOOD_SIZE = 64;
    private static final int SMALL = 16;

    GniFlowControlConformanceTest()
    {
        super(GniConformance.WITH_ATOMICS);
    }

    @Override
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    @DisplayName("gni INJECT_64: a 256 B tinject EMSGSIZE; 64k unexpected 64 B tinjects received in reverse windows")
    protected void shouldReceive64kUnexpectedMessagesInReverseTagOrderInWindowsOf16(final Progress progress)
    {
        final int messages = 65536;
        final int window = 16;
        try (FlowNet net = new FlowNet(factory, progress, 2, 4096))
        {
            assertEquals(Errno.EMSGSIZE.negated(), net.eps[1].tinject(direct(256), 0, 256, 0, 0));
            final UnsafeBuffer out = direct(FLOOD_SIZE);
            for (int i = 0; i < messages; i++)
            {
                final long tag = i;
                out.putLong(0, tag);
                out.putLong(8, ~tag);
                out.putLong(FLOOD_SIZE - 8, tag);
                post(() -> net.eps[1].tinject(out, 0, FLOOD_SIZE, 0, tag), net.open());
            }
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
                    post(() -> net.eps[0].trecv(in[slot], 0, FLOOD_SIZE, AddressVector.ADDR_UNSPEC, tag, 0, slot),
                        net.open());
                }
                for (int done = 0; done < window; done++)
                {
                    final CompletionEntry e = one(net.rxCqs[0], net.open());
                    final int slot = (int) e.context();
                    final long tag = base + slot;
                    assertEquals(tag, e.tag(), "tag");
                    assertEquals(FLOOD_SIZE, e.len(), "length");
                    assertEquals(tag, in[slot].getLong(0), "payload");
                    assertEquals(~tag, in[slot].getLong(8), "payload");
                    assertEquals(tag, in[slot].getLong(FLOOD_SIZE - 8), "payload end");
                }
            }
            assertEquals(Errno.EAGAIN.negated(), net.rxCqs[0].read(entry));
        }
    }

    /**
     * {@link GniDifferences#ONE_SIDED}: node 1's writes of 128 KiB to node 0, which never progresses (MANUAL), land
     * in node 0's memory through its NIC alone and complete (the suite asserts the opposite: nothing read before node
     * 0 runs again). The VC from node 1 to node 0 is connected first by one message both sides progress, as for
     * {@link GniDifferences#MANUAL_CONNECT}: an RMA waits for the VC's handshake and the peer's caps
     * ({@link GniPeerCaps}). Node 0's endpoint has no {@code FI_RMA_EVENT} (the suite's caps), so upstream's rule sends
     * it nothing after a write: each completes on node 1's NIC event (the target acknowledged the data), and the
     * key's 64 provider registrations ({@code GNIX_PROV_KEY_LIMIT}) are given back as they complete.
     * <p>
     * gni's answer asserted: the 64 writes and the bystander's message to node 2, posted after them, all complete
     * while node 0 never progresses, the writes in posting order (the message anywhere among them: comp_order NONE);
     * node 0's memory holds the last write's bytes; a 65th write (other bytes) completes likewise, with its bytes in
     * place. Then node 0 runs again and finds nothing to do: no completion and no event at its endpoint.
     */
    @Override
    @Test
    @DisplayName("gni ONE_SIDED: a stopped target's NIC lands and completes 65 writes; the bystander's message too")
    protected void shouldKeepSendingToOtherPeersWhileRmaWaitsForAStoppedPeersFullRing()
    {
        final int size = 128 * 1024;
        final int writes = 64;
        try (FlowNet net = new FlowNet(factory, Progress.MANUAL, 3, 64))
        {
            final Domain[] running = {net.domains[1], net.domains[2]};
            final Domain[] all = net.open();
            final UnsafeBuffer target = direct(size);
            try (MemoryRegion mr = net.domains[0].registerMemory(target, 0, size, Flags.REMOTE_WRITE, 31))
            {
                final UnsafeBuffer hello = direct(SMALL);
                post(() -> net.eps[0].trecv(hello, 0, SMALL, 1, 99, 0, 99), all);
                post(() -> net.eps[1].tsend(direct(SMALL), 0, SMALL, 0, 99, 99), all);
                assertEquals(99, one(net.rxCqs[0], all).context());
                assertEquals(99, one(net.txCqs[1], all).context());
                // Node 0's caps (EP_CAPS, sent when it connected) are in node 1's mailbox: one more pass reads them.
                progress(all);

                final UnsafeBuffer ones = direct(size);
                final UnsafeBuffer twos = direct(size);
                final UnsafeBuffer threes = direct(size);
                ones.setMemory(0, size, (byte) 1);
                twos.setMemory(0, size, (byte) 2);
                threes.setMemory(0, size, (byte) 3);
                for (int i = 0; i < writes; i++)
                {
                    final UnsafeBuffer source = i == writes - 1 ? twos : ones;
                    final int context = i;
                    post(() -> net.eps[1].write(source, 0, size, 0, 0, mr.key(), context), running);
                }
                post(() -> net.eps[1].tsend(message(7), 0, SMALL, 2, 7, 1_000_000), running);
                final UnsafeBuffer in = direct(SMALL);
                post(() -> net.eps[2].trecv(in, 0, SMALL, 1, 7, 0, 7), running);
                assertEquals(7, one(net.rxCqs[2], running).tag());
                assertEquals(7, in.getLong(0));

                int nextWrite = 0;
                boolean messageDone = false;
                for (int i = 0; i < writes + 1; i++)
                {
                    final long context = one(net.txCqs[1], running).context();
                    if (1_000_000 == context)
                    {
                        assertTrue(!messageDone, "the bystander's message once");
                        messageDone = true;
                    }
                    else
                    {
                        assertEquals(nextWrite++, context, "writes complete in posting order");
                    }
                }
                assertEquals(writes, nextWrite);
                assertEquals(2, target.getByteVolatile(0), "the last write's bytes, node 0 never progressed");
                assertEquals(2, target.getByteVolatile(size - 1));

                post(() -> net.eps[1].write(threes, 0, size, 0, 0, mr.key(), writes), running);
                assertEquals(writes, one(net.txCqs[1], running).context(), "the 65th write, node 0 still stopped");
                for (int i = 0; i < size; i++)
                {
                    assertEquals(3, target.getByte(i), "the last write's bytes last");
                }

                // Node 0 runs again: without FI_RMA_EVENT nothing was sent to it, nothing completes there.
                for (int i = 0; i < 100; i++)
                {
                    progress(all);
                }
                final CompletionEntry entry = new CompletionEntry();
                assertEquals(Errno.EAGAIN.negated(), net.rxCqs[0].read(entry));
                assertEquals(Errno.EAGAIN.negated(), net.txCqs[1].read(entry));
            }
        }
    }

    private static UnsafeBuffer message(final long value)
    {
        final UnsafeBuffer out = direct(SMALL);
        out.putLong(0, value);
        out.putLong(8, ~value);
        return out;
    }
}
