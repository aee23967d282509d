/*
 * Copyright 2026 jfabric contributors.
 */
package io.jfabric.ring.stress;

import io.jfabric.ring.CommandQueue;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;

/**
 * Helpers of the command-queue stress tests: a small queue positioned near its wrap point, commands whose every word
 * derives from (producer, sequence), and a consumer that checks them.
 */
final class StressCommands
{
    static final int CAPACITY = 1024;
    static final int LENGTH = 32;

    private StressCommands()
    {
    }

    /**
     * A queue whose positions are {@code advance} commands of {@link #LENGTH} bytes past zero, so that the commands
     * of a test wrap the ring's end.
     *
     * @param advance commands to post and consume first.
     * @return the queue, empty.
     */
    static CommandQueue queue(final int advance)
    {
        final CommandQueue queue = new CommandQueue(CAPACITY);
        final Checker discard = new Checker(0);
        for (int i = 0; i < advance; i++)
        {
            post(queue, 0, 0);
            // a read stops at the ring's end (padding there), so read until the positions meet
            while (queue.consumerPosition() != queue.producerPosition())
            {
                queue.controlledRead(discard, Integer.MAX_VALUE);
            }
        }
        return queue;
    }

    /**
     * Claim, write and commit command {@code seq} of {@code producer}.
     *
     * @param queue    the queue.
     * @param producer 0 or 1 (the opcode is {@code producer + 1}).
     * @param seq      sequence within the producer.
     * @return false when the claim was refused.
     */
    static boolean post(final CommandQueue queue, final int producer, final int seq)
    {
        final int index = queue.tryClaim(producer + 1, LENGTH);
        if (index < 0)
        {
            return false;
        }
        final AtomicBuffer buffer = queue.buffer();
        final long base = producer * 1000L + seq;
        for (int k = 0; k < LENGTH / 8; k++)
        {
            buffer.putLong(index + 8 * k, base * 16 + k);
        }
        queue.commit(index);
        return true;
    }

    /**
     * Checks each command whole (opcode, length, every word), per producer in sequence; may answer ABORT to the
     * first {@code aborts} commands it is shown, which must then come again.
     */
    static final class Checker implements ControlledMessageHandler
    {
        final int[] next = new int[2];
        int delivered;
        int errors;
        int aborts;

        Checker(final int aborts)
        {
            this.aborts = aborts;
        }

        @Override
        public Action onMessage(
            final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            final int producer = msgTypeId - 1;
            if (producer < 0 || producer > 1 || LENGTH != length)
            {
                errors++;
                return Action.CONTINUE;
            }
            final long base = producer * 1000L + next[producer];
            for (int k = 0; k < LENGTH / 8; k++)
            {
                if (buffer.getLong(index + 8 * k) != base * 16 + k)
                {
                    errors++;
                    return Action.CONTINUE;
                }
            }
            if (aborts > 0)
            {
                aborts--;
                return Action.ABORT;
            }
            next[producer]++;
            delivered++;
            return Action.CONTINUE;
        }

        /**
         * Read everything left (single-threaded, after the actors).
         *
         * @param queue the queue.
         */
        void readAll(final CommandQueue queue)
        {
            for (int i = 0; i < 16; i++)
            {
                queue.controlledRead(this, Integer.MAX_VALUE);
            }
        }
    }
}
