package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.Counter;
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.PollSet;
import io.jfabric.Progress;
import io.jfabric.WaitChannel;
import io.jfabric.WaitSet;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.HashSet;
import java.util.Set;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Poll sets, {@code fi_trywait} and the selectable wait channels (what replaces {@code FI_WAIT_FD}), modelled on
 * fabtests' {@code poll}, {@code msg_epoll} and {@code eq_wait_fd_poll}: which members a poll reports, that
 * {@code trywait} answers {@code -EAGAIN} while something is ready and 0 otherwise, that an event after a
 * {@code trywait} of 0 wakes a {@link Selector} (the race fi_poll(3) describes), that signals coalesce, and bad input.
 */
@Timeout(120)
public abstract class WaitConformance extends Conformance
{
    private static final long SELECT_MS = Pair.DEADLINE_NS / 1_000_000L;

    /**
     * @param factory the provider under test.
     */
    protected WaitConformance(final PairFactory factory)
    {
        super(factory);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldReportTheContextsOfReadyMembersFromPoll(final Progress progress)
    {
        try (Pair p = pair(progress); PollSet set = p.domainB.pollOpen())
        {
            set.add(p.cqB, 11).add(p.recvCntrB, 12);
            assertEquals(2, set.size());
            final long[] ready = new long[4];
            assertEquals(0, set.poll(ready, 4), "nothing happened yet");
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 5));
            final UnsafeBuffer tx = pattern(64, 7);
            assertEquals(0, p.a.send(tx, 0, 64, p.addrBFromA, 6));
            final Set<Long> seen = new HashSet<>();
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (seen.size() < 2)
            {
                final int n = set.poll(ready, 4);
                assertTrue(n >= 0 && n <= 2, "poll returned " + n);
                for (int i = 0; i < n; i++)
                {
                    seen.add(ready[i]);
                }
                assertTrue(System.nanoTime() - deadline < 0, "poll reported only " + seen);
                Drive.progress(p.domainA);
            }
            assertEquals(Set.of(11L, 12L), seen);
            // The counter's move was reported once; the CQ stays ready until it is read.
            assertEquals(1, set.poll(ready, 4));
            assertEquals(11L, ready[0]);
            assertEquals(5, Drive.one(p.cqB, p.domainB).context());
            assertPattern(rx, 0, 64, 7);
            assertEquals(0, set.poll(ready, 4), "read: nothing left");
            assertEquals(6, Drive.one(p.cqA, p.domainA).context());
            assertEquals(0, set.del(p.recvCntrB));
            assertEquals(Errno.ENOENT.negated(), set.del(p.recvCntrB));
            assertEquals(1, set.size());
        }
    }

    @Test
    void shouldRefuseBadPollSetInput()
    {
        try (Pair p = pair(Progress.MANUAL); PollSet set = p.domainB.pollOpen())
        {
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> set.add((Counter) null, 1)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> set.add(p.cqA, 1)).errno(),
                "a CQ of another domain");
            set.add(p.cqB, 1);
            assertEquals(Errno.EALREADY, assertThrows(FabricException.class, () -> set.add(p.cqB, 2)).errno());
            assertEquals(Errno.EINVAL.negated(), set.poll(null, 1));
            assertEquals(Errno.EINVAL.negated(), set.poll(new long[1], 2));
            assertEquals(Errno.EINVAL.negated(), set.poll(new long[1], -1));
            assertEquals(Errno.ENOENT.negated(), set.del("not a member"));
            set.close();
            assertEquals(Errno.EINVAL.negated(), set.poll(new long[1], 1), "closed");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldAnswerEagainFromTrywaitWhileACompletionWaitsAndZeroOnceRead(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            assertEquals(0, p.fabric.trywait(p.cqA, p.cqB), "nothing to read: may block");
            send(p, 64, 3);
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (0 == p.fabric.trywait(p.cqB))
            {
                assertTrue(System.nanoTime() - deadline < 0, "trywait never saw the completion");
                Drive.progress(p.domainA);
            }
            assertEquals(Errno.EAGAIN.negated(), p.fabric.trywait(p.cqA, p.cqB), "still unread");
            assertEquals(1, Drive.one(p.cqB, p.domainB).context());
            assertEquals(2, Drive.one(p.cqA, p.domainA).context());
            assertEquals(0, p.fabric.trywait(p.cqA, p.cqB), "all read");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldWakeASelectorForACompletionThatArrivesAfterTrywait(final Progress progress) throws Exception
    {
        try (Pair p = pair(progress); Selector selector = Selector.open())
        {
            final WaitChannel channel = p.cqB.waitChannel();
            assertSame(channel, p.cqB.waitChannel(), "one channel per queue");
            final SelectionKey key = channel.channel().register(selector, SelectionKey.OP_READ);
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.fabric.trywait(p.cqB));
            assertEquals(0, selector.selectNow(), "no event: not readable");
            // The event comes after trywait answered 0 and before the select: it must not be lost.
            final Thread sender = sendFromThread(p, 64, 9, 10);
            assertEquals(1, selector.select(SELECT_MS), "the armed channel was signalled");
            assertTrue(selector.selectedKeys().contains(key));
            selector.selectedKeys().clear();
            assertEquals(Errno.EAGAIN.negated(), p.fabric.trywait(p.cqB), "ready: read, do not wait");
            assertEquals(1, Drive.one(p.cqB, p.domainB).context());
            assertPattern(rx, 0, 64, 9);
            sender.join(SELECT_MS);
            assertFalse(sender.isAlive());
            assertEquals(0, p.fabric.trywait(p.cqB), "drained and read: may block again");
            assertEquals(0, selector.selectNow(), "trywait drained the old signal");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldCoalesceSignalsIntoOneByteUntilTrywaitArmsAgain(final Progress progress) throws Exception
    {
        final int messages = 10;
        try (Pair p = pair(progress); Selector selector = Selector.open())
        {
            final WaitChannel channel = p.cqB.waitChannel();
            channel.channel().register(selector, SelectionKey.OP_READ);
            final UnsafeBuffer rx = direct(64 * messages);
            for (int i = 0; i < messages; i++)
            {
                assertEquals(0, p.b.recv(rx, 64 * i, 64, AddressVector.ADDR_UNSPEC, 100 + i));
            }
            assertEquals(0, p.fabric.trywait(p.cqB));
            final Thread sender = sendFromThread(p, 64, 4, messages);
            assertEquals(1, selector.select(SELECT_MS));
            selector.selectedKeys().clear();
            final CompletionEntry entry = new CompletionEntry();
            for (int i = 0; i < messages; i++)
            {
                assertEquals(100 + i, Drive.one(p.cqB, p.domainB).context());
            }
            sender.join(SELECT_MS);
            assertFalse(sender.isAlive());
            final ByteBuffer bytes = ByteBuffer.allocate(16);
            assertEquals(1, channel.channel().read(bytes), messages + " completions, one signal");
            assertEquals(Errno.EAGAIN.negated(), p.cqB.read(entry));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"MANUAL", "AUTO"})
    void shouldSignalACounterChannelWhenTheCountMovesAfterTrywait(final Progress progress) throws Exception
    {
        try (Pair p = pair(progress); Selector selector = Selector.open())
        {
            p.recvCntrB.waitChannel().channel().register(selector, SelectionKey.OP_READ);
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.fabric.trywait(p.recvCntrB));
            final Thread sender = sendFromThread(p, 64, 2, 1);
            assertEquals(1, selector.select(SELECT_MS));
            selector.selectedKeys().clear();
            assertEquals(1, p.recvCntrB.read());
            assertEquals(Errno.EAGAIN.negated(), p.fabric.trywait(p.recvCntrB), "the count moved: read it");
            assertEquals(0, p.fabric.trywait(p.recvCntrB), "the move was taken");
            assertEquals(1, Drive.one(p.cqB, p.domainB).context());
            sender.join(SELECT_MS);
            assertFalse(sender.isAlive());
        }
    }

    @Test
    void shouldWakeASelectorForAnEventQueueWriteAfterTrywait() throws Exception
    {
        try (Pair p = pair(Progress.AUTO); Selector selector = Selector.open())
        {
            final EventQueue eq = p.fabric.eventQueue(8);
            try
            {
                final SelectionKey key = eq.waitChannel().channel().register(selector, SelectionKey.OP_READ);
                assertEquals(0, p.fabric.trywait(eq));
                final Thread writer = new Thread(() -> eq.write(EventQueue.NOTIFY, null, 42, 43));
                writer.start();
                assertEquals(1, selector.select(SELECT_MS));
                assertTrue(selector.selectedKeys().contains(key));
                selector.selectedKeys().clear();
                writer.join(SELECT_MS);
                assertEquals(Errno.EAGAIN.negated(), p.fabric.trywait(eq));
                final EqEntry entry = new EqEntry();
                assertEquals(1, eq.read(entry, 0));
                assertEquals(42, entry.context());
                assertEquals(43, entry.data());
                assertEquals(0, p.fabric.trywait(eq));
            }
            finally
            {
                eq.close();
            }
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, eq::waitChannel).errno(),
                "a closed queue has no wait channel");
        }
    }

    @Test
    void shouldServeSeveralChannelsInOneSelector() throws Exception
    {
        try (Pair p = pair(Progress.MANUAL); Selector selector = Selector.open())
        {
            final SelectionKey keyA = p.cqA.waitChannel().channel().register(selector, SelectionKey.OP_READ);
            final SelectionKey keyB = p.cqB.waitChannel().channel().register(selector, SelectionKey.OP_READ);
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.fabric.trywait(p.cqA, p.cqB));
            assertEquals(0, p.a.send(pattern(64, 5), 0, 64, p.addrBFromA, 2));
            // The watcher drives both armed queues' manual progress: the send leaves and both sides complete.
            final Set<SelectionKey> woken = new HashSet<>();
            final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
            while (woken.size() < 2)
            {
                assertTrue(System.nanoTime() - deadline < 0, "woken only " + woken.size());
                if (selector.select(SELECT_MS) > 0)
                {
                    // A signalled channel stays readable (nobody drains it here): each fires once per arm.
                    woken.addAll(selector.selectedKeys());
                    selector.selectedKeys().clear();
                }
            }
            assertEquals(Set.of(keyA, keyB), woken);
            assertEquals(1, Drive.one(p.cqB, p.domainB).context());
            assertEquals(2, Drive.one(p.cqA, p.domainA).context());
            assertPattern(rx, 0, 64, 5);
        }
    }

    @Test
    void shouldWakeASelectorThroughAWaitSetChannel() throws Exception
    {
        try (Pair p = pair(Progress.MANUAL); Selector selector = Selector.open();
            WaitSet set = p.fabric.waitSet())
        {
            set.add(p.cqB);
            final SelectionKey key = set.waitChannel().channel().register(selector, SelectionKey.OP_READ);
            final UnsafeBuffer rx = direct(64);
            assertEquals(0, p.b.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, p.fabric.trywait(set));
            assertEquals(0, selector.selectNow());
            final Thread sender = sendFromThread(p, 64, 12, 1);
            assertEquals(1, selector.select(SELECT_MS), "a member became ready");
            assertTrue(selector.selectedKeys().contains(key));
            selector.selectedKeys().clear();
            assertEquals(Errno.EAGAIN.negated(), p.fabric.trywait(set));
            assertEquals(1, Drive.one(p.cqB, p.domainB).context());
            assertPattern(rx, 0, 64, 12);
            sender.join(SELECT_MS);
            assertFalse(sender.isAlive());
            assertEquals(0, p.fabric.trywait(set));
        }
    }

    @Test
    void shouldRefuseBadTrywaitInput()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.fabric.trywait((Object[]) null)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.fabric.trywait(p.cqA, "a string")).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> p.fabric.trywait(p.cqA, null)).errno());
            assertEquals(0, p.fabric.trywait());
        }
    }

    private static void send(final Pair p, final int length, final int seed)
    {
        final UnsafeBuffer rx = direct(length);
        assertEquals(0, p.b.recv(rx, 0, length, AddressVector.ADDR_UNSPEC, 1));
        assertEquals(0, p.a.send(pattern(length, seed), 0, length, p.addrBFromA, 2));
    }

    /**
     * Sends {@code count} messages from endpoint a on another thread, which drives a's domain until their
     * completions were read (the test thread blocks in a selector meanwhile).
     */
    private static Thread sendFromThread(final Pair p, final int length, final int seed, final int count)
    {
        final Thread t = new Thread(() ->
        {
            try
            {
                final UnsafeBuffer tx = pattern(length, seed);
                for (int i = 0; i < count; i++)
                {
                    assertEquals(0, p.a.send(tx, 0, length, p.addrBFromA, 50 + i));
                }
                for (int i = 0; i < count; i++)
                {
                    assertEquals(50 + i, Drive.one(p.cqA, p.domainA).context());
                }
            }
            catch (final Throwable ex)
            {
                // The test thread sees the sender die (join) and its completions never come.
                ex.printStackTrace();
            }
        }, "wait-conformance-sender");
        t.start();
        return t;
    }
}
