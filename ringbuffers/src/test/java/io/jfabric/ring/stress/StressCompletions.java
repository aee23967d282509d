package io.jfabric.ring.stress;

import io.jfabric.ring.CompletionRing;

/**
 * Helpers of the completion-ring stress tests: entries whose every field derives from one number, and a sink that
 * checks them.
 */
final class StressCompletions
{
    private StressCompletions()
    {
    }

    /**
     * Write entry {@code n} (agent side).
     *
     * @param ring  the ring.
     * @param n     the entry number.
     * @param error as an error entry.
     */
    static void write(final CompletionRing ring, final int n, final boolean error)
    {
        if (error)
        {
            ring.writeError(n, n + 1000, n * 7L, n * 11L, n * 13L, n * 17L, n * 23L, n + 1, n + 2, n * 19L);
        }
        else
        {
            ring.write(n, n + 1000, n * 7L, n * 11L, n * 13L, n * 17L, n * 19L);
        }
    }

    /**
     * Counts how often each entry was read, and whole-entry errors (a field not matching its entry's number).
     */
    static final class Checker implements CompletionRing.CompletionSink
    {
        final int[] timesSeen = new int[16];
        int errors;
        int last = -1;

        /**
         * Read once under the read guard, as a CQ reader does: the error entry when one waits, else up to
         * {@code count} entries; nothing when another reader holds the guard.
         *
         * @param ring  the ring.
         * @param count most entries.
         */
        void readSome(final CompletionRing ring, final int count)
        {
            if (!ring.tryLockRead())
            {
                return;
            }
            try
            {
                if (ring.hasError())
                {
                    ring.readErrorInto(this);
                }
                else
                {
                    ring.readInto(this, count);
                }
            }
            finally
            {
                ring.unlockRead();
            }
        }

        /**
         * Read everything left (single-threaded, after the actors).
         *
         * @param ring the ring.
         */
        void readAll(final CompletionRing ring)
        {
            for (int i = 0; i < 32; i++)
            {
                readSome(ring, 16);
            }
        }

        @Override
        public void onCompletion(
            final int index,
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long src)
        {
            final int n = (int) context;
            if (n < 0 || n >= timesSeen.length || flags != n + 1000 || len != n * 7L || buf != n * 11L ||
                data != n * 13L || tag != n * 17L || src != n * 19L || n <= last)
            {
                errors++;
                return;
            }
            last = n;
            timesSeen[n]++;
        }

        @Override
        public void onError(
            final long context,
            final long flags,
            final long len,
            final long buf,
            final long data,
            final long tag,
            final long olen,
            final int err,
            final int provErrno,
            final long src)
        {
            final int n = (int) context;
            if (n < 0 || n >= timesSeen.length || flags != n + 1000 || len != n * 7L || buf != n * 11L ||
                data != n * 13L || tag != n * 17L || olen != n * 23L || err != n + 1 || provErrno != n + 2 ||
                src != n * 19L)
            {
                errors++;
                return;
            }
            timesSeen[n]++;
        }
    }
}
