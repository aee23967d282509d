package io.jfabric.loadtest;

import org.HdrHistogram.Histogram;

/**
 * The operations a rig has in flight: the time each one is measured from (its scheduled send time for a
 * fixed-rate run, its actual start for a closed loop), indexed by sequence number modulo the window, and which have
 * completed, so that a slot is reused only once every older operation completed.
 * <p>
 * On completion the round trip, {@code completedNs - from}, of an operation started while recording goes into the
 * current histogram (values above its
 * highest trackable value are recorded as that value). Not thread-safe: the rig's thread.
 */
final class InFlight implements LoadTarget.CompletionHandler
{
    private final long[] from;
    private final boolean[] done;
    private final boolean[] recorded;
    private final int mask;
    private long next;
    private long oldest;
    private long completed;
    private long recordedCompleted;
    private boolean recording = true;
    private Histogram histogram;
    private long highest;

    InFlight(final int window)
    {
        from = new long[window];
        done = new boolean[window];
        recorded = new boolean[window];
        mask = window - 1;
    }

    void record(final Histogram histogram)
    {
        this.histogram = histogram;
        this.highest = histogram.getHighestTrackableValue();
    }

    /**
     * Whether operations started from now on are recorded (a warm-up's are not, even when they complete during the
     * measured part).
     */
    void recording(final boolean recording)
    {
        this.recording = recording;
    }

    long recordedCompleted()
    {
        return recordedCompleted;
    }

    boolean full()
    {
        return next - oldest > mask;
    }

    boolean empty()
    {
        return next == oldest;
    }

    long next()
    {
        return next;
    }

    long completed()
    {
        return completed;
    }

    long inFlight()
    {
        return next - oldest;
    }

    void started(final long fromNs)
    {
        from[(int) (next & mask)] = fromNs;
        recorded[(int) (next & mask)] = recording;
        next++;
    }

    @Override
    public void onComplete(final long seq, final long completedNs)
    {
        final int slot = (int) (seq & mask);
        if (seq < oldest || seq >= next || done[slot])
        {
            return;
        }
        done[slot] = true;
        completed++;
        if (recorded[slot])
        {
            recordedCompleted++;
            histogram.recordValue(Math.max(0, Math.min(completedNs - from[slot], highest)));
        }
        while (oldest < next && done[(int) (oldest & mask)])
        {
            done[(int) (oldest & mask)] = false;
            oldest++;
        }
    }
}
