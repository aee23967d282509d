package io.jfabric.agent;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class PinTableTest
{
    @Test
    void shouldAnswerNoneWhenFullAndReuseReleasedSlots()
    {
        final PinTable table = new PinTable(3);
        final Object a = new Object();
        final int s0 = table.pin(a, PinTable.NONE);
        final int s1 = table.pin(a, PinTable.NONE);
        final int s2 = table.pin(a, PinTable.NONE);
        assertTrue(s0 >= 0 && s1 >= 0 && s2 >= 0);
        assertEquals(PinTable.NONE, table.pin(a, PinTable.NONE));
        assertEquals(3, table.pinned());
        table.release(s1);
        assertEquals(2, table.pinned());
        assertEquals(s1, table.pin(a, PinTable.NONE));
    }

    @Test
    void shouldReleaseEveryLinkedSlotOfAnOperation()
    {
        final PinTable table = new PinTable(8);
        final int last = table.pin(new Object(), PinTable.NONE);
        final int middle = table.pin(new Object(), last);
        final int first = table.pin(PinTable.NO_HOLDER, middle);
        table.context(first, -77);
        assertEquals(3, table.pinned());
        assertEquals(-77, table.finish(PinTable.cookie(first)));
        assertEquals(0, table.pinned());
        // An unpinned operation's cookie never names a slot, whatever its context.
        final int other = table.pin(new Object(), PinTable.NONE);
        assertEquals(Long.MAX_VALUE, table.finish(PinTable.unpinnedCookie(-1L)));
        assertEquals(1, table.pinned());
        table.release(other);
    }

    @Test
    void shouldTreatACookieWithoutTheMarkAsTheContextItself()
    {
        final PinTable table = new PinTable(4);
        final int slot = table.pin(new Object(), PinTable.NONE);
        assertEquals(0, table.finish(0));
        assertEquals(12345, table.finish(12345));
        assertEquals(1, table.pinned());
        table.release(slot);
        assertEquals(0, table.pinned());
    }

    @Test
    void shouldIgnoreReleasesAfterReleaseAll()
    {
        final PinTable table = new PinTable(2);
        final int slot = table.pin(new Object(), PinTable.NONE);
        table.releaseAll();
        assertEquals(0, table.pinned());
        table.release(slot);
        table.release(PinTable.NONE);
        assertEquals(0, table.pinned());
    }

    @Test
    void shouldNeverHandOneSlotToTwoOwnersWithManyThreads() throws InterruptedException
    {
        final int capacity = 64;
        final PinTable table = new PinTable(capacity);
        final AtomicIntegerArray owner = new AtomicIntegerArray(capacity);
        final AtomicReference<String> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 1; t <= 3; t++)
        {
            final int id = t;
            final Object holder = new Object();
            threads.add(new Thread(() ->
            {
                final int[] mine = new int[8];
                for (int round = 0; round < 20_000 && null == failure.get(); round++)
                {
                    int held = 0;
                    for (int k = 0; k < mine.length; k++)
                    {
                        final int slot = table.pin(holder, PinTable.NONE);
                        if (slot >= 0)
                        {
                            if (!owner.compareAndSet(slot, 0, id))
                            {
                                failure.set("slot " + slot + " handed out twice");
                            }
                            mine[held++] = slot;
                        }
                    }
                    for (int k = 0; k < held; k++)
                    {
                        owner.set(mine[k], 0);
                        table.release(mine[k]);
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertNull(failure.get());
        assertEquals(0, table.pinned());
        // Every slot is free again: the table fills exactly to its capacity.
        for (int i = 0; i < capacity; i++)
        {
            assertTrue(table.pin(new Object(), PinTable.NONE) >= 0);
        }
        assertEquals(PinTable.NONE, table.pin(new Object(), PinTable.NONE));
    }
}
