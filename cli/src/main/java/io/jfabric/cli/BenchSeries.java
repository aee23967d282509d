package io.jfabric.cli;

import io.jfabric.loadtest.RigResult;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One line of {@code jfabric bench}'s table and plot: one target (a jfabric provider or a peer) at one size (and,
 * for a fixed-rate run, one rate), its repetitions merged. An external tool's figure ({@code fi_pingpong} reports
 * a mean only) has no histogram.
 * <p>
 * Control path; the command's thread.
 */
final class BenchSeries
{
    final String target;
    final boolean jfabric;
    final String mode;
    final int size;
    final long rate;
    final int window;
    final int pairs;
    final Histogram histogram = new Histogram(1, RigResult.HIGHEST_NS, 3);
    final List<RigResult> repetitions = new ArrayList<>();
    final List<String> warnings = new ArrayList<>();
    /** An external tool's mean round trip in ns (no histogram), or NaN. */
    double externalMeanRttNs = Double.NaN;
    /** Why a peer did not run (not installed, not applicable), or null. */
    String missing;
    int externalRuns;
    boolean partial;
    long started;
    long completed;
    long elapsedNs;

    BenchSeries(final String target, final boolean jfabric, final String mode, final int size, final long rate,
        final int window, final int pairs)
    {
        this.target = target;
        this.jfabric = jfabric;
        this.mode = mode;
        this.size = size;
        this.rate = rate;
        this.window = window;
        this.pairs = pairs;
    }

    void addExternal(final double rttNs)
    {
        externalRuns++;
        externalMeanRttNs = Double.isNaN(externalMeanRttNs) ? rttNs :
            externalMeanRttNs + (rttNs - externalMeanRttNs) / externalRuns;
    }

    void add(final RigResult r)
    {
        repetitions.add(r);
        histogram.add(r.histogram());
        started += r.started();
        completed += r.completed();
        elapsedNs += r.elapsedNs();
        warnings.addAll(r.warnings());
        partial |= r.stopped();
    }

    boolean measured()
    {
        return histogram.getTotalCount() > 0 || !Double.isNaN(externalMeanRttNs);
    }

    boolean hasHistogram()
    {
        return histogram.getTotalCount() > 0;
    }

    double opsPerSecond()
    {
        return 0 == elapsedNs ? 0 : completed * 1e9 / elapsedNs;
    }

    double megabytesPerSecond()
    {
        return opsPerSecond() * size / 1e6;
    }

    /**
     * @return the file name stem: target, size, rate ({@code shm-tagged-64B-10000ps}).
     */
    String stem()
    {
        final String t = target.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
        return t + "-" + size + "B" + (rate > 0 ? "-" + rate + "ps" : "") + (pairs > 1 ? "-" + pairs + "pairs" : "");
    }

    /**
     * @return the legend and table label: {@code shm tagged 64 B @ 10k/s}.
     */
    String title()
    {
        return target + " " + PingpongResult.bytes(size) + " B" + (rate > 0 ? " @ " + rateText(rate) + "/s" : "");
    }

    boolean sameCase(final BenchSeries other)
    {
        return size == other.size && rate == other.rate && pairs == other.pairs;
    }

    static String rateText(final long rate)
    {
        if (rate >= 1_000_000 && 0 == rate % 1_000_000)
        {
            return rate / 1_000_000 + "m";
        }
        if (rate >= 1_000 && 0 == rate % 1_000)
        {
            return rate / 1_000 + "k";
        }
        return Long.toString(rate);
    }
}
