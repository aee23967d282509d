package io.jfabric.loadtest;

import io.jfabric.Errno;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * Closed-loop measurements (fabtests and OSU style): a new operation starts only when one completes.
 * <ul>
 *     <li>{@link #latency}: one operation at a time, {@code count} round trips, each timed from its start (with
 *     one in flight there is no schedule to omit: see {@link FixedRateRig} for the open-loop test); one way is
 *     reported as half the round trip.</li>
 *     <li>{@link #throughput}: {@code window} operations kept in flight for a duration ({@code osu_bw},
 *     {@code osu_mbw_mr} with one pair per thread): operations and payload bytes per second.</li>
 *     <li>{@link #stream}: the same with a one-way target ({@code jfabric bench -m stream}): every loop starts as
 *     many operations as the window and the target's back-pressure allow before it polls once, as a streaming
 *     publisher offers until it is back-pressured.</li>
 * </ul>
 * Allocation: none per operation. Not thread-safe: one thread per rig (a multi-pair run uses one rig per pair);
 * {@link #stop()} is safe from any thread.
 */
public final class ClosedLoopRig
{
    private final IdleStrategy idle;
    private final long timeoutNs;
    private volatile boolean stopped;

    /**
     * A rig.
     *
     * @param idle      idle strategy between polls that found nothing.
     * @param timeoutMs the longest one operation may take.
     */
    public ClosedLoopRig(final IdleStrategy idle, final long timeoutMs)
    {
        this.idle = idle;
        this.timeoutNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    }

    /**
     * Make the run return with what it measured. Safe from any thread.
     */
    public void stop()
    {
        stopped = true;
    }

    /**
     * One operation in flight: {@code warmup} unrecorded round trips, then {@code count} recorded.
     *
     * @param target what is measured.
     * @param warmup unrecorded round trips.
     * @param count  recorded round trips.
     * @return the result (round trips in its histogram).
     */
    public RigResult latency(final LoadTarget target, final int warmup, final int count)
    {
        final RigResult result = new RigResult(target.label(), "latency", target.size(), 1, 0);
        final InFlight inFlight = new InFlight(1);
        final Histogram discard = new Histogram(1, RigResult.HIGHEST_NS, 3);
        inFlight.record(discard);
        int status = loop(target, inFlight, 1, 1, warmup, Long.MAX_VALUE);
        if (0 == status)
        {
            inFlight.record(result.histogram());
            final long before = inFlight.completed();
            final long start = System.nanoTime();
            status = loop(target, inFlight, 1, 1, count, Long.MAX_VALUE);
            result.add(inFlight.completed() - before, inFlight.completed() - before, System.nanoTime() - start);
        }
        if (0 != status)
        {
            result.stopped(status);
        }
        return result;
    }

    /**
     * A window of operations in flight for {@code warmupNs} unrecorded, then {@code durationNs} recorded.
     *
     * @param target     what is measured.
     * @param window     operations in flight (at most the target's window).
     * @param warmupNs   unrecorded time.
     * @param durationNs recorded time.
     * @return the result: {@link RigResult#opsPerSecond()}, {@link RigResult#megabytesPerSecond()}, round trips.
     */
    public RigResult throughput(final LoadTarget target, final int window, final long warmupNs, final long durationNs)
    {
        final int w = Math.max(1, Math.min(window, target.window()));
        return windowed(target, w, 1, warmupNs, durationNs);
    }

    /**
     * A one-way stream: up to {@code window} operations in flight, started in bursts (as many as the window and the
     * target's back-pressure allow, then one poll), for {@code warmupNs} unrecorded, then {@code durationNs}
     * recorded. Meant for a target that completes an operation when the peer received it
     * ({@code FabricTarget}/{@code AeronTarget} opened one-way).
     *
     * @param target     what is measured.
     * @param window     operations in flight (at most the target's window).
     * @param warmupNs   unrecorded time.
     * @param durationNs recorded time.
     * @return the result: {@link RigResult#opsPerSecond()}, {@link RigResult#megabytesPerSecond()}, start to
     * reception.
     */
    public RigResult stream(final LoadTarget target, final int window, final long warmupNs, final long durationNs)
    {
        final int w = Math.max(1, Math.min(window, target.window()));
        return windowed(target, w, w, warmupNs, durationNs);
    }

    private RigResult windowed(
        final LoadTarget target, final int w, final int burst, final long warmupNs, final long durationNs)
    {
        final RigResult result = new RigResult(target.label(), "throughput", target.size(), w, 0);
        final InFlight inFlight = new InFlight(target.window());
        final Histogram discard = new Histogram(1, RigResult.HIGHEST_NS, 3);
        inFlight.record(discard);
        int status = loop(target, inFlight, w, burst, Long.MAX_VALUE, System.nanoTime() + warmupNs);
        if (0 == status)
        {
            inFlight.record(result.histogram());
            final long started = inFlight.next();
            final long before = inFlight.completed();
            final long start = System.nanoTime();
            status = loop(target, inFlight, w, burst, Long.MAX_VALUE, start + durationNs);
            result.add(inFlight.next() - started, inFlight.completed() - before, System.nanoTime() - start);
        }
        if (0 != status)
        {
            result.stopped(status);
        }
        return result;
    }

    /**
     * Keep {@code window} in flight until {@code count} completed or the clock passed {@code endNs}, then drain;
     * each pass starts at most {@code burst} operations before it polls.
     */
    private int loop(
        final LoadTarget target, final InFlight inFlight, final int window, final int burst, final long count,
        final long endNs)
    {
        final IdleStrategy idleStrategy = idle;
        final long first = inFlight.completed();
        long lastProgress = System.nanoTime();
        boolean sending = true;
        while (sending || !inFlight.empty())
        {
            if (stopped)
            {
                return Errno.ECANCELED.negated();
            }
            final long now = System.nanoTime();
            if (sending && (inFlight.next() - first >= count || now - endNs > 0))
            {
                sending = false;
            }
            int work = 0;
            for (int b = 0; b < burst && sending && inFlight.inFlight() < window &&
                inFlight.next() - first < count; b++)
            {
                final long t0 = System.nanoTime();
                final int rc = target.start(inFlight.next());
                if (rc < 0)
                {
                    return rc;
                }
                if (1 != rc)
                {
                    break;
                }
                inFlight.started(t0);
                work++;
            }
            final int polled = target.poll(inFlight);
            if (polled < 0)
            {
                return polled;
            }
            work += polled;
            if (0 == work)
            {
                if (now - lastProgress > timeoutNs)
                {
                    return Errno.ETIMEDOUT.negated();
                }
                idleStrategy.idle();
            }
            else
            {
                lastProgress = now;
                idleStrategy.reset();
            }
        }
        return 0;
    }
}
