/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring.stress;

import io.jfabric.ring.CommandHandler;
import io.jfabric.ring.CommandRing;
import io.jfabric.ring.CommandRingDescriptor;
import io.jfabric.ring.CompletionFlyweight;
import io.jfabric.ring.CompletionHandler;
import io.jfabric.ring.CompletionRing;
import io.jfabric.ring.CompletionRingDescriptor;
import io.jfabric.ring.ManyToOneCommandRing;
import io.jfabric.ring.OneToOneCommandRing;
import io.jfabric.ring.OneToOneCompletionRing;
import io.jfabric.ring.RingStatus;
import io.jfabric.ring.SharedCompletionRing;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Shared fixtures for the jcstress tests: small rings positioned near the wrap point, a body encoding that exposes
 * torn or misplaced commands, and a completion encoding that exposes torn entries.
 */
final class StressRings
{
    static final int COMMAND_SLOTS = 16;
    static final int COMPLETION_ENTRIES = 16;

    private StressRings()
    {
    }

    static CommandRing manyToOne(final int advance)
    {
        return advance(new ManyToOneCommandRing(direct(CommandRingDescriptor.requiredLength(COMMAND_SLOTS))), advance);
    }

    static CommandRing oneToOne(final int advance)
    {
        return advance(new OneToOneCommandRing(direct(CommandRingDescriptor.requiredLength(COMMAND_SLOTS))), advance);
    }

    static CompletionRing oneToOneCompletion()
    {
        return new OneToOneCompletionRing(direct(CompletionRingDescriptor.requiredLength(COMPLETION_ENTRIES)));
    }

    static CompletionRing sharedCompletion()
    {
        return new SharedCompletionRing(direct(CompletionRingDescriptor.sharedRequiredLength(COMPLETION_ENTRIES)));
    }

    private static AtomicBuffer direct(final int length)
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(length));
    }

    /**
     * Move head and tail forward by the given number of slots, so that the test's commands cross the wrap point.
     */
    private static CommandRing advance(final CommandRing ring, final int slots)
    {
        for (int i = 0; i < slots; i++)
        {
            ring.commit(ring.tryClaim(1));
        }
        ring.drain((buffer, offset, count) ->
        {
        }, slots);
        return ring;
    }

    static long word(final int producer, final int seq, final int i)
    {
        return ((long) producer << 48) | ((long) seq << 16) | i;
    }

    /**
     * Claim, fill and commit (or abort) a command.
     *
     * @return true if the claim succeeded.
     */
    static boolean post(final CommandRing ring, final int producer, final int seq, final int slots, final boolean abort)
    {
        final int index = ring.tryClaim(slots);
        if (index < 0)
        {
            return false;
        }
        final AtomicBuffer buffer = ring.buffer();
        final int bodyLength = CommandRingDescriptor.bodyLength(slots);
        for (int i = 0; i < bodyLength; i += 8)
        {
            buffer.putLong(index + i, word(producer, seq, i >> 3));
        }
        if (abort)
        {
            ring.abort(index);
        }
        else
        {
            ring.commit(index);
        }
        return true;
    }

    /**
     * Checks commands as they are drained: per producer the expected sequence and slot count, and every body word.
     */
    static final class CommandChecker implements CommandHandler
    {
        final int[] next = new int[4];
        final int[][] slotsBySeq;
        int delivered;
        int errors;

        CommandChecker(final int[][] slotsBySeq)
        {
            this.slotsBySeq = slotsBySeq;
        }

        public void onCommand(final AtomicBuffer buffer, final int offset, final int slots)
        {
            delivered++;
            final long first = buffer.getLong(offset);
            final int producer = (int) (first >>> 48);
            final int seq = (int) ((first >>> 16) & 0xFFFF);
            if (producer >= slotsBySeq.length || seq != next[producer] || seq >= slotsBySeq[producer].length ||
                slotsBySeq[producer][seq] != slots)
            {
                errors++;
                return;
            }
            next[producer] = seq + 1;
            final int bodyLength = CommandRingDescriptor.bodyLength(slots);
            for (int i = 0; i < bodyLength; i += 8)
            {
                if (buffer.getLong(offset + i) != word(producer, seq, i >> 3))
                {
                    errors++;
                }
            }
        }

        int drainAll(final CommandRing ring)
        {
            int drained = 0;
            int count;
            while ((count = ring.drain(this, 64)) > 0)
            {
                drained += count;
            }
            return drained;
        }
    }

    static int writeEntry(final CompletionRing ring, final long n, final boolean error)
    {
        return error ?
            ring.writeError(n, n * 3, n * 5, n * 7, n * 11, n * 13, 265, (int) n, n * 17) :
            ring.write(n, n * 3, n * 5, n * 7, n * 11, n * 13);
    }

    /**
     * Checks completion entries as they are read: all fields of one write, each entry number at most once.
     */
    static final class CompletionChecker implements CompletionHandler
    {
        final CompletionFlyweight flyweight = new CompletionFlyweight();
        final int[] timesSeen = new int[256];
        long lastSeen = -1;
        int read;
        int errors;

        public void onCompletion(final AtomicBuffer buffer, final int offset)
        {
            flyweight.wrap(buffer, offset);
            final long n = flyweight.context();
            read++;
            if (n < 0 || n >= timesSeen.length)
            {
                errors++;
                return;
            }
            timesSeen[(int) n]++;
            lastSeen = n;
            final boolean error = flyweight.isError();
            if (flyweight.flags() != n * 3 || flyweight.length() != n * 5 || flyweight.bufferAddress() != n * 7 ||
                flyweight.data() != n * 11 || flyweight.tag() != n * 13 ||
                flyweight.overflowLength() != (error ? n * 17 : 0) ||
                flyweight.providerErrno() != (error ? (int) n : 0) || flyweight.errno() != (error ? 265 : 0))
            {
                errors++;
            }
        }

        /**
         * One fi_cq_read-like step: read success entries, or the error entry at the head.
         */
        int readSome(final CompletionRing ring, final int limit)
        {
            final int result = ring.read(this, limit);
            if (RingStatus.ERROR_AVAILABLE == result)
            {
                return ring.readError(this);
            }
            return result;
        }

        int readAll(final CompletionRing ring)
        {
            int total = 0;
            int count;
            while ((count = readSome(ring, 64)) > 0)
            {
                total += count;
            }
            return total;
        }
    }
}
