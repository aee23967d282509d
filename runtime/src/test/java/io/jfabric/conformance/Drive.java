package io.jfabric.conformance;

import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.Domain;
import io.jfabric.Errno;

import java.util.function.IntSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Waits of the conformance suite that drive the progress of the domains named (a test of several domains, some of
 * which it deliberately leaves alone), each with a deadline ({@link Pair#DEADLINE_NS}).
 * <p>
 * Threading: test thread only.
 */
public final class Drive
{
    private Drive()
    {
    }

    /**
     * Drive each domain once (a no-op with AUTO progress) and yield.
     *
     * @param domains the domains.
     */
    public static void progress(final Domain... domains)
    {
        for (final Domain d : domains)
        {
            d.progress();
        }
        Thread.yield();
    }

    /**
     * Read exactly one successful completion within the deadline, driving {@code domains}.
     *
     * @param cq      the CQ.
     * @param domains the domains to drive.
     * @return the entry.
     */
    public static CompletionEntry one(final CompletionQueue cq, final Domain... domains)
    {
        final CompletionEntry entry = new CompletionEntry();
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                return entry;
            }
            if (n == Errno.EAVAIL.negated())
            {
                final CompletionErrorEntry err = new CompletionErrorEntry();
                cq.readErr(err);
                fail("expected a completion, got error " + err.errno() + " context " + err.context());
            }
            if (n != Errno.EAGAIN.negated())
            {
                fail("cq.read returned " + n + " (" + Errno.strerror(n) + ")");
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("no completion before the deadline");
            }
            progress(domains);
        }
    }

    /**
     * Wait for an error entry and read it, driving {@code domains}.
     *
     * @param cq      the CQ.
     * @param domains the domains to drive.
     * @return the error entry.
     */
    public static CompletionErrorEntry error(final CompletionQueue cq, final Domain... domains)
    {
        final CompletionErrorEntry entry = new CompletionErrorEntry();
        final CompletionEntry ignored = new CompletionEntry();
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        while (true)
        {
            final int n = cq.read(ignored);
            if (n == Errno.EAVAIL.negated())
            {
                assertEquals(1, cq.readErr(entry));
                return entry;
            }
            if (n > 0)
            {
                fail("expected an error completion, got context " + ignored.context());
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("no error completion before the deadline");
            }
            progress(domains);
        }
    }

    /**
     * Post until the post is accepted (not {@code -EAGAIN}), driving {@code domains}; assert it returned 0.
     *
     * @param post    the post.
     * @param domains the domains to drive.
     */
    public static void post(final IntSupplier post, final Domain... domains)
    {
        final long deadline = System.nanoTime() + Pair.DEADLINE_NS;
        int rc;
        while ((rc = post.getAsInt()) == Errno.EAGAIN.negated())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("post kept returning EAGAIN");
            }
            progress(domains);
        }
        final int result = rc;
        assertEquals(0, result, () -> "post returned " + result + " (" + Errno.strerror(result) + ")");
    }
}
