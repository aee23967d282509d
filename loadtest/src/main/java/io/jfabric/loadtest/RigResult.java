package io.jfabric.loadtest;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What one rig run measured: the round trips (merged over the measured iterations of a fixed-rate run), how many
 * operations were started and completed in the measured part, how long it took, and the warnings (a target rate not
 * reached). A run stopped early ({@link #stopped()}) holds what was measured until then.
 * <p>
 * Built by the rig's thread, then read by anyone once the run returned.
 */
public final class RigResult
{
    /** Highest round trip the histograms track: 60 s in nanoseconds. */
    public static final long HIGHEST_NS = 60_000_000_000L;

    private final String label;
    private final String mode;
    private final int size;
    private final int window;
    private final long targetRate;
    private final Histogram histogram = new Histogram(1, HIGHEST_NS, 3);
    private final List<String> warnings = new ArrayList<>();
    private final List<Long> iterationCounts = new ArrayList<>();
    private long started;
    private long completed;
    private long elapsedNs;
    private boolean stopped;
    private int status;

    RigResult(final String label, final String mode, final int size, final int window, final long targetRate)
    {
        this.label = label;
        this.mode = mode;
        this.size = size;
        this.window = window;
        this.targetRate = targetRate;
    }

    void add(final long started, final long completed, final long elapsedNs)
    {
        this.started += started;
        this.completed += completed;
        this.elapsedNs += elapsedNs;
    }

    void iteration(final long sent)
    {
        iterationCounts.add(sent);
    }

    void warn(final String warning)
    {
        warnings.add(warning);
    }

    void stopped(final int status)
    {
        this.stopped = true;
        this.status = status;
    }

    /**
     * @return what ran ({@code shm tagged}, {@code aeron ipc}).
     */
    public String label()
    {
        return label;
    }

    /**
     * @return {@code fixed-rate}, {@code latency} or {@code throughput}.
     */
    public String mode()
    {
        return mode;
    }

    /**
     * @return message size in bytes.
     */
    public int size()
    {
        return size;
    }

    /**
     * @return operations in flight at most.
     */
    public int window()
    {
        return window;
    }

    /**
     * @return the target rate in operations per second (fixed-rate runs), else 0.
     */
    public long targetRate()
    {
        return targetRate;
    }

    /**
     * @return the round trips in nanoseconds (fixed rate: from each operation's scheduled send time).
     */
    public Histogram histogram()
    {
        return histogram;
    }

    /**
     * @return warnings, in order (empty when none).
     */
    public List<String> warnings()
    {
        return Collections.unmodifiableList(warnings);
    }

    /**
     * @return operations started in each measured iteration of a fixed-rate run.
     */
    public List<Long> iterationCounts()
    {
        return Collections.unmodifiableList(iterationCounts);
    }

    /**
     * @return operations started in the measured part.
     */
    public long started()
    {
        return started;
    }

    /**
     * @return operations completed in the measured part.
     */
    public long completed()
    {
        return completed;
    }

    /**
     * @return nanoseconds of the measured part.
     */
    public long elapsedNs()
    {
        return elapsedNs;
    }

    /**
     * @return completed operations per second over the measured part.
     */
    public double opsPerSecond()
    {
        return 0 == elapsedNs ? 0 : completed * 1e9 / elapsedNs;
    }

    /**
     * @return payload megabytes (10^6 B) per second one way: completed operations × size over the measured part.
     */
    public double megabytesPerSecond()
    {
        return opsPerSecond() * size / 1e6;
    }

    /**
     * @return whether the run was stopped (abort, failure) before it finished.
     */
    public boolean stopped()
    {
        return stopped;
    }

    /**
     * @return 0, or the {@code -errno} that stopped the run ({@code -ECANCELED} after an abort).
     */
    public int status()
    {
        return status;
    }

    /**
     * Add another pair's figures (a throughput run over several pairs): counts add up, the histograms merge, the
     * elapsed time is the longer one.
     *
     * @param other the other pair's result.
     */
    public void merge(final RigResult other)
    {
        histogram.add(other.histogram);
        started += other.started;
        completed += other.completed;
        elapsedNs = Math.max(elapsedNs, other.elapsedNs);
        warnings.addAll(other.warnings);
        if (other.stopped && !stopped)
        {
            stopped(other.status);
        }
    }
}
