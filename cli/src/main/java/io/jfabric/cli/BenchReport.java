package io.jfabric.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.jfabric.loadtest.OpClass;
import io.jfabric.loadtest.RigResult;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The table and the JSON of {@code jfabric bench}. Each row is one series; the ratio columns compare it with the
 * first jfabric provider's series of the same size (and rate): round trips as {@code this / base} (below 1 is
 * faster than jfabric), rates as {@code this / base} (above 1 is more).
 * <p>
 * Control path; stateless.
 */
final class BenchReport
{
    private BenchReport()
    {
    }

    private static BenchSeries base(final BenchSeries s, final List<BenchSeries> all)
    {
        for (final BenchSeries b : all)
        {
            if (b.jfabric && b.sameCase(s) && b.measured())
            {
                return b;
            }
        }
        return null;
    }

    private static String us(final double ns)
    {
        return String.format(Locale.ROOT, "%.2f", ns / 1000.0);
    }

    private static String ratio(final double value, final double base)
    {
        return base > 0 && value > 0 && !Double.isNaN(value) ? String.format(Locale.ROOT, "%.2f", value / base) :
            "-";
    }

    private static double p(final BenchSeries s, final double percentile)
    {
        return s.hasHistogram() ? s.histogram.getValueAtPercentile(percentile) : Double.NaN;
    }

    private static double mean(final BenchSeries s)
    {
        return s.hasHistogram() ? s.histogram.getMean() : s.externalMeanRttNs;
    }

    /**
     * The table: a heading naming the mode, then one row per series, then warnings and missing peers.
     */
    static String table(final String mode, final OpClass op, final int repetitions, final List<BenchSeries> series,
        final Map<String, String> missing)
    {
        final StringBuilder sb = new StringBuilder();
        final boolean fixed = "fixed".equals(mode);
        final boolean latency = "latency".equals(mode);
        sb.append("jfabric bench ").append(mode).append(": ").append(op.label()).append(", ").append(repetitions)
            .append(" repetition").append(1 == repetitions ? "" : "s").append(" alternating the targets; ")
            .append(fixed ? "round trip from each message's scheduled send time (µs)" :
            latency ? "closed-loop round trip (µs), one way = round trip / 2" :
            "window of operations in flight").append('\n');
        if (fixed || latency)
        {
            sb.append(String.format(Locale.ROOT, "%-22s %6s %7s %9s %9s %9s %9s %9s %9s %9s %9s  %-7s %-7s %s%n",
                "target", "bytes", fixed ? "rate/s" : "", fixed ? "done/s" : "1way p50", "p50", "p90", "p99",
                "p99.9", "p99.99", "max", "mean", "x p50", "x p99", "p50 per rep"));
        }
        else
        {
            sb.append(String.format(Locale.ROOT, "%-22s %6s %6s %5s %12s %10s %9s %9s  %-7s %s%n", "target", "bytes",
                "window", "pairs", "ops/s", "MB/s", "p50", "p99", "x ops/s", "ops/s per rep"));
        }
        for (final BenchSeries s : series)
        {
            if (null != s.missing && !s.measured())
            {
                sb.append(String.format(Locale.ROOT, "%-22s %6s  not run: %s%n", s.target,
                    PingpongResult.bytes(s.size), s.missing));
                continue;
            }
            final BenchSeries b = base(s, series);
            final StringBuilder reps = new StringBuilder();
            for (final RigResult r : s.repetitions)
            {
                reps.append(reps.length() > 0 ? "/" : "");
                if (fixed || latency)
                {
                    reps.append(r.histogram().getTotalCount() > 0 ?
                        us(r.histogram().getValueAtPercentile(50)) : "-");
                }
                else
                {
                    reps.append(String.format(Locale.ROOT, "%.0f", r.opsPerSecond()));
                }
            }
            final String name = s.target + (s.partial ? " (partial)" : "");
            if (fixed || latency)
            {
                final String rateOrEmpty = fixed ? BenchSeries.rateText(s.rate) : "";
                final String second = fixed ?
                    String.format(Locale.ROOT, "%.0f", s.elapsedNs > 0 ? s.started * 1e9 / s.elapsedNs : 0) :
                    s.hasHistogram() ? us(p(s, 50) / 2) : "-";
                sb.append(String.format(Locale.ROOT, "%-22s %6s %7s %9s %9s %9s %9s %9s %9s %9s %9s  %-7s %-7s %s%n",
                    name, PingpongResult.bytes(s.size), rateOrEmpty, second,
                    cell(p(s, 50)), cell(p(s, 90)), cell(p(s, 99)), cell(p(s, 99.9)), cell(p(s, 99.99)),
                    s.hasHistogram() ? us(s.histogram.getMaxValue()) : "-", us(mean(s)),
                    null == b ? "-" : ratio(s.hasHistogram() ? p(s, 50) : mean(s), b.hasHistogram() ? p(b, 50) :
                    mean(b)),
                    null == b ? "-" : ratio(p(s, 99), p(b, 99)),
                    s.hasHistogram() ? reps.toString() : "mean only (" + s.externalRuns + " runs)"));
            }
            else
            {
                sb.append(String.format(Locale.ROOT, "%-22s %6s %6d %5d %12.0f %10.2f %9s %9s  %-7s %s%n", name,
                    PingpongResult.bytes(s.size), s.window, s.pairs, s.opsPerSecond(), s.megabytesPerSecond(),
                    cell(p(s, 50)), cell(p(s, 99)), null == b ? "-" : ratio(s.opsPerSecond(), b.opsPerSecond()),
                    reps));
            }
        }
        for (final BenchSeries s : series)
        {
            for (final String w : s.warnings)
            {
                sb.append("warning: ").append(w).append('\n');
            }
        }
        for (final Map.Entry<String, String> m : missing.entrySet())
        {
            sb.append("missing peer: ").append(m.getKey()).append(": ").append(m.getValue()).append('\n');
        }
        return sb.toString();
    }

    private static String cell(final double ns)
    {
        return Double.isNaN(ns) ? "-" : us(ns);
    }

    /**
     * The JSON: one object with the run's settings, a {@code series} array and the missing peers.
     */
    static String json(final String mode, final OpClass op, final int repetitions, final List<BenchSeries> series,
        final Map<String, String> missing)
    {
        final JsonObject root = new JsonObject();
        root.addProperty("mode", mode);
        root.addProperty("op", op.label());
        root.addProperty("repetitions", repetitions);
        final JsonArray array = new JsonArray();
        for (final BenchSeries s : series)
        {
            final JsonObject o = new JsonObject();
            o.addProperty("target", s.target);
            o.addProperty("jfabric", s.jfabric);
            o.addProperty("size", s.size);
            if (s.rate > 0)
            {
                o.addProperty("rate", s.rate);
            }
            o.addProperty("window", s.window);
            o.addProperty("pairs", s.pairs);
            o.addProperty("measured", s.measured());
            o.addProperty("partial", s.partial);
            if (null != s.missing)
            {
                o.addProperty("not_run", s.missing);
            }
            o.addProperty("started", s.started);
            o.addProperty("completed", s.completed);
            o.addProperty("elapsed_s", s.elapsedNs / 1e9);
            o.addProperty("ops_per_sec", s.opsPerSecond());
            o.addProperty("mb_per_sec", s.megabytesPerSecond());
            if (s.hasHistogram())
            {
                o.add("rtt_ns", percentiles(s.histogram));
                if ("latency".equals(mode))
                {
                    final JsonObject oneWay = new JsonObject();
                    oneWay.addProperty("p50", s.histogram.getValueAtPercentile(50) / 2.0);
                    oneWay.addProperty("mean", s.histogram.getMean() / 2.0);
                    o.add("one_way_ns", oneWay);
                }
            }
            else if (!Double.isNaN(s.externalMeanRttNs))
            {
                final JsonObject rtt = new JsonObject();
                rtt.addProperty("mean", s.externalMeanRttNs);
                o.add("rtt_ns", rtt);
                final JsonObject oneWay = new JsonObject();
                oneWay.addProperty("mean", s.externalMeanRttNs / 2);
                o.add("one_way_ns", oneWay);
            }
            final JsonArray reps = new JsonArray();
            for (final RigResult r : s.repetitions)
            {
                final JsonObject rep = new JsonObject();
                rep.addProperty("completed", r.completed());
                rep.addProperty("ops_per_sec", r.opsPerSecond());
                if (r.histogram().getTotalCount() > 0)
                {
                    rep.addProperty("p50_ns", r.histogram().getValueAtPercentile(50));
                }
                if (!r.iterationCounts().isEmpty())
                {
                    final JsonArray counts = new JsonArray();
                    r.iterationCounts().forEach(counts::add);
                    rep.add("iteration_counts", counts);
                }
                reps.add(rep);
            }
            o.add("repetitions", reps);
            final JsonArray warnings = new JsonArray();
            s.warnings.forEach(warnings::add);
            o.add("warnings", warnings);
            final BenchSeries b = base(s, series);
            if (null != b && s.measured())
            {
                final JsonObject ratio = new JsonObject();
                ratio.addProperty("base", b.target);
                if ("bw".equals(mode) || "mr".equals(mode) || "stream".equals(mode))
                {
                    ratio.addProperty("ops_per_sec", s.opsPerSecond() / b.opsPerSecond());
                }
                else
                {
                    ratio.addProperty("p50", (s.hasHistogram() ? p(s, 50) : mean(s)) /
                        (b.hasHistogram() ? p(b, 50) : mean(b)));
                    if (s.hasHistogram() && b.hasHistogram())
                    {
                        ratio.addProperty("p99", p(s, 99) / p(b, 99));
                    }
                }
                o.add("ratio", ratio);
            }
            array.add(o);
        }
        root.add("series", array);
        final JsonObject miss = new JsonObject();
        missing.forEach(miss::addProperty);
        root.add("missing_peers", miss);
        return root.toString();
    }

    private static JsonObject percentiles(final Histogram h)
    {
        final JsonObject o = new JsonObject();
        o.addProperty("p50", h.getValueAtPercentile(50));
        o.addProperty("p90", h.getValueAtPercentile(90));
        o.addProperty("p99", h.getValueAtPercentile(99));
        o.addProperty("p999", h.getValueAtPercentile(99.9));
        o.addProperty("p9999", h.getValueAtPercentile(99.99));
        o.addProperty("max", h.getMaxValue());
        o.addProperty("min", h.getMinValue());
        o.addProperty("mean", h.getMean());
        o.addProperty("count", h.getTotalCount());
        return o;
    }
}
