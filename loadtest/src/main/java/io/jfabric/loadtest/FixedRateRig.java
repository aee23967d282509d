package io.jfabric.loadtest;

import io.jfabric.Errno;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * A fixed-rate load test free of coordinated omission, after Aeron's {@code LoadTestRig}: operations are due at a
 * target rate on a schedule fixed in advance (the k-th of an iteration at {@code start + k × 10^9 / rate} ns), and
 * each round trip is recorded from its <em>scheduled</em> time, not from when it could be sent. A stall (the
 * window full, the transport back-pressured, the thread descheduled) delays the sends behind it and their wait is
 * measured, as it would be for a client sending on a clock.
 * <p>
 * A run is {@code warmup} unrecorded one-second iterations, then {@code iterations} measured ones; each iteration
 * gets its own histogram (handed to the {@link Listener}, e.g. for an interval log) and they are merged into the
 * result; an interval holds the operations started in a measured iteration that completed in it (a warm-up's
 * operations are never recorded). An iteration that cannot start all its operations within two seconds leaves the
 * rest unsent and (when measured) adds a warning that the rate was not reached.
 * <p>
 * Allocation: none per operation (histograms and the in-flight table exist before the loop). Not thread-safe: one
 * thread runs it; {@link #stop()} is safe from any thread and makes the run return what it measured so far.
 */
public final class FixedRateRig
{
    /** Nanoseconds of one iteration. */
    public static final long ITERATION_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long ITERATION_LIMIT_NS = 2 * ITERATION_NS;

    /**
     * Told after each iteration (on the rig's thread).
     */
    @FunctionalInterface
    public interface Listener
    {
        /**
         * An iteration ended.
         *
         * @param index     its index: warm-up iterations first, from 0.
         * @param warmup    whether it was a warm-up iteration.
         * @param interval  its round trips (valid during the call only).
         * @param startedNs its start, {@link System#nanoTime()}.
         * @param sent      operations started in it.
         */
        void onIteration(int index, boolean warmup, Histogram interval, long startedNs, long sent);
    }

    private final IdleStrategy idle;
    private final long drainTimeoutNs;
    private final Histogram interval = new Histogram(1, RigResult.HIGHEST_NS, 3);
    private volatile boolean stopped;

    /**
     * A rig.
     *
     * @param idle           idle strategy between polls while nothing is due ({@code spin} is the most exact).
     * @param drainTimeoutMs the longest the run waits for operations in flight at its end.
     */
    public FixedRateRig(final IdleStrategy idle, final long drainTimeoutMs)
    {
        this.idle = idle;
        this.drainTimeoutNs = TimeUnit.MILLISECONDS.toNanos(drainTimeoutMs);
    }

    /**
     * Make the run return after the current poll with what it measured. Safe from any thread.
     */
    public void stop()
    {
        stopped = true;
    }

    /**
     * Run the load test.
     *
     * @param target     what is measured.
     * @param rate       operations per second (at least 1).
     * @param warmup     unrecorded one-second iterations.
     * @param iterations measured one-second iterations.
     * @param listener   told after each iteration, or null.
     * @return the merged result (partial when stopped or failed: see {@link RigResult#stopped()}).
     */
    public RigResult run(
        final LoadTarget target, final long rate, final int warmup, final int iterations, final Listener listener)
    {
        final RigResult result = new RigResult(target.label(), "fixed-rate", target.size(), target.window(), rate);
        final InFlight inFlight = new InFlight(target.window());
        final Histogram current = interval;
        inFlight.record(current);
        int status = 0;
        final int total = warmup + iterations;
        for (int i = 0; i < total && 0 == status; i++)
        {
            current.reset();
            final boolean warm = i < warmup;
            final long startedBefore = inFlight.next();
            final long completedBefore = inFlight.recordedCompleted();
            inFlight.recording(!warm);
            final long start = System.nanoTime();
            status = iterate(target, inFlight, rate, start);
            final long sent = inFlight.next() - startedBefore;
            if (0 == status && sent < rate && !warm)
            {
                result.warn(String.format("%s: iteration %d started %d of %d operations (rate %d/s not reached)",
                    target.label(), i - warmup + 1, sent, rate, rate));
            }
            if (i == total - 1 && 0 == status)
            {
                status = drain(target, inFlight);
            }
            if (!warm)
            {
                result.histogram().add(current);
                result.iteration(sent);
                result.add(sent, inFlight.recordedCompleted() - completedBefore, System.nanoTime() - start);
            }
            if (null != listener)
            {
                listener.onIteration(i, warm, current, start, sent);
            }
        }
        if (0 != status)
        {
            result.stopped(status);
        }
        return result;
    }

    private int iterate(final LoadTarget target, final InFlight inFlight, final long rate, final long start)
    {
        final IdleStrategy idleStrategy = idle;
        final long limit = start + ITERATION_LIMIT_NS;
        long k = 0;
        while (k < rate)
        {
            if (stopped)
            {
                return Errno.ECANCELED.negated();
            }
            final long due = start + (k * ITERATION_NS) / rate;
            final long now = System.nanoTime();
            int work = 0;
            if (now - due >= 0 && !inFlight.full())
            {
                final int rc = target.start(inFlight.next());
                if (rc < 0)
                {
                    return rc;
                }
                if (1 == rc)
                {
                    // measured from the schedule: a late start (window full, back-pressure) is part of the wait
                    inFlight.started(due);
                    k++;
                    work++;
                }
            }
            else if (now - limit > 0)
            {
                return 0;
            }
            final int polled = target.poll(inFlight);
            if (polled < 0)
            {
                return polled;
            }
            work += polled;
            if (0 == work)
            {
                idleStrategy.idle();
            }
            else
            {
                idleStrategy.reset();
            }
        }
        // the rest of the second: keep reading completions until the next iteration is due
        final long end = start + ITERATION_NS;
        while (System.nanoTime() - end < 0)
        {
            if (stopped)
            {
                return Errno.ECANCELED.negated();
            }
            final int polled = target.poll(inFlight);
            if (polled < 0)
            {
                return polled;
            }
            idleStrategy.idle(polled);
        }
        return 0;
    }

    private int drain(final LoadTarget target, final InFlight inFlight)
    {
        final long deadline = System.nanoTime() + drainTimeoutNs;
        while (!inFlight.empty())
        {
            if (stopped)
            {
                return Errno.ECANCELED.negated();
            }
            if (System.nanoTime() - deadline > 0)
            {
                return Errno.ETIMEDOUT.negated();
            }
            final int polled = target.poll(inFlight);
            if (polled < 0)
            {
                return polled;
            }
            idle.idle(polled);
        }
        return 0;
    }
}
