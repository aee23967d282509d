package io.jfabric.cli;

import com.google.gson.stream.JsonWriter;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;

/**
 * The figures of one size of a ping-pong run, and their three renderings: a row of {@code fi_pingpong}'s table,
 * a row of the round-trip percentiles, and a JSON object.
 * <p>
 * Table columns, with {@code fi_pingpong}'s meaning: {@code bytes} the message size; {@code #sent} the messages
 * this side sent (the iterations); {@code #ack} the messages acknowledged by an answer ({@code =n} when all,
 * {@code +d} when {@code d} fewer, {@code -d} when more); {@code total} bytes moved both ways
 * ({@code 2 x sent x size}); {@code time} the measured loop's wall-clock seconds; {@code MB/sec} total bytes per
 * microsecond (10^6 B/s); {@code usec/xfer} microseconds per one-way transfer ({@code time / sent / 2});
 * {@code Mxfers/sec} its inverse.
 * <p>
 * Immutable (the histogram is not copied: the owner stops recording into it first).
 */
public final class PingpongResult
{
    private static final String TABLE_FORMAT = "%-8s%-8s%-9s%-8s%9s%11s%13s%13s%n";
    private static final String PERCENTILE_FORMAT = "%-8s%11s%11s%11s%11s%11s%11s%n";

    final String provider;
    final String epType;
    final String op;
    final String progress;
    final int size;
    final int sent;
    final int acked;
    final int warmup;
    final long elapsedNs;
    final long p50;
    final long p90;
    final long p99;
    final long p999;
    final long p9999;
    final long max;
    final long min;
    final double mean;
    final Histogram histogram;

    PingpongResult(
        final PingpongParams params, final String progress, final int size, final int sent, final int acked,
        final long elapsedNs, final long[] percentiles, final double mean, final Histogram histogram)
    {
        this.provider = params.provider;
        this.epType = params.epType.fiName();
        this.op = params.op();
        this.progress = progress;
        this.size = size;
        this.sent = sent;
        this.acked = acked;
        this.warmup = params.warmup;
        this.elapsedNs = elapsedNs;
        this.p50 = percentiles[0];
        this.p90 = percentiles[1];
        this.p99 = percentiles[2];
        this.p999 = percentiles[3];
        this.p9999 = percentiles[4];
        this.max = percentiles[5];
        this.min = percentiles[6];
        this.mean = mean;
        this.histogram = histogram;
    }

    /**
     * The percentiles this class reports, in the order {@link #PingpongResult} takes them.
     *
     * @param h the histogram.
     * @return p50, p90, p99, p99.9, p99.99, max, min.
     */
    static long[] percentiles(final Histogram h)
    {
        return new long[] {
            h.getValueAtPercentile(50), h.getValueAtPercentile(90), h.getValueAtPercentile(99),
            h.getValueAtPercentile(99.9), h.getValueAtPercentile(99.99), h.getMaxValue(), h.getMinValue() };
    }

    /**
     * @return the message size in bytes.
     */
    public int size()
    {
        return size;
    }

    /**
     * @return round trips measured.
     */
    public int sent()
    {
        return sent;
    }

    /**
     * @return median round-trip time in nanoseconds.
     */
    public long p50()
    {
        return p50;
    }

    /**
     * @return the largest round-trip time in nanoseconds.
     */
    public long max()
    {
        return max;
    }

    /**
     * @return microseconds per one-way transfer, as {@code fi_pingpong} computes it.
     */
    public double usecPerXfer()
    {
        return elapsedNs / 1000.0 / sent / 2;
    }

    /**
     * @return millions of one-way transfers per second.
     */
    public double mxfersPerSec()
    {
        final double u = usecPerXfer();
        return u > 0 ? 1.0 / u : 0;
    }

    /**
     * @return bytes moved both ways.
     */
    public long totalBytes()
    {
        return 2L * sent * size;
    }

    /**
     * @return total bytes per microsecond (MB/s with MB = 10^6 bytes).
     */
    public double mbPerSec()
    {
        final double us = elapsedNs / 1000.0;
        return us > 0 ? totalBytes() / us : 0;
    }

    /**
     * @return the round-trip histogram (ns) when this side measured it, else null.
     */
    public Histogram histogram()
    {
        return histogram;
    }

    static String tableHeader()
    {
        return String.format(Locale.ROOT, TABLE_FORMAT, "bytes", "#sent", "#ack", "total", "time", "MB/sec",
            "usec/xfer", "Mxfers/sec");
    }

    String tableRow()
    {
        final String ack;
        if (sent == acked)
        {
            ack = "=" + count(acked);
        }
        else if (sent < acked)
        {
            ack = "-" + count(acked - sent);
        }
        else
        {
            ack = "+" + count(sent - acked);
        }
        return String.format(Locale.ROOT, TABLE_FORMAT, bytes(size), count(sent), ack, bytes(totalBytes()),
            String.format(Locale.ROOT, "%.2fs", elapsedNs / 1e9), String.format(Locale.ROOT, "%.2f", mbPerSec()),
            String.format(Locale.ROOT, "%.2f", usecPerXfer()), String.format(Locale.ROOT, "%.2f", mxfersPerSec()));
    }

    static String percentileHeader()
    {
        return String.format(Locale.ROOT, PERCENTILE_FORMAT, "bytes", "p50", "p90", "p99", "p99.9", "p99.99",
            "max");
    }

    String percentileRow()
    {
        return String.format(Locale.ROOT, PERCENTILE_FORMAT, bytes(size), p50, p90, p99, p999, p9999, max);
    }

    /**
     * @return this result as one JSON object on one line (PINGPONG.md lists the keys).
     */
    String json()
    {
        return write((w) -> json(w));
    }

    private void json(final JsonWriter w) throws IOException
    {
        w.beginObject();
        w.name("provider").value(provider).name("ep_type").value(String.valueOf(epType)).name("op").value(op)
            .name("progress").value(progress);
        w.name("size").value(size).name("iterations").value(sent).name("acked").value(acked)
            .name("warmup").value(warmup);
        w.name("time_s").jsonValue(fixed(elapsedNs / 1e9, 6)).name("mb_per_sec").jsonValue(fixed(mbPerSec(), 3));
        w.name("rtt_ns").beginObject();
        w.name("p50").value(p50).name("p90").value(p90).name("p99").value(p99).name("p999").value(p999)
            .name("p9999").value(p9999).name("max").value(max).name("min").value(min)
            .name("mean").jsonValue(fixed(mean, 1));
        w.endObject();
        w.name("usec_per_xfer").jsonValue(fixed(usecPerXfer(), 4))
            .name("mxfers_per_sec").jsonValue(fixed(mxfersPerSec(), 4));
        w.endObject();
    }

    /**
     * @param results the results, at least one.
     * @param array   an array (one object per line) rather than the single object.
     * @return the JSON text.
     */
    static String json(final List<PingpongResult> results, final boolean array)
    {
        if (!array)
        {
            return results.get(0).json();
        }
        final StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < results.size(); i++)
        {
            sb.append(0 == i ? "" : ",\n").append(results.get(i).json());
        }
        return sb.append(']').toString();
    }

    /** A number with a fixed count of decimals (the table's precision), as JSON text. */
    private static String fixed(final double value, final int decimals)
    {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%." + decimals + "f", value) : "null";
    }

    private static String write(final InfoJson.Body body)
    {
        final StringWriter text = new StringWriter();
        try (JsonWriter w = new JsonWriter(text))
        {
            body.write(w);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return text.toString();
    }

    /**
     * A byte count as {@code fi_pingpong} prints it: {@code k}, {@code m}, {@code g} (powers of 1024) with one
     * decimal below ten units when there is a fraction ({@code 1.5k}), else whole units.
     *
     * @param value bytes.
     * @return the short form.
     */
    static String bytes(final long value)
    {
        final long base;
        final String unit;
        if (value >= 1L << 30)
        {
            base = 1L << 30;
            unit = "g";
        }
        else if (value >= 1L << 20)
        {
            base = 1L << 20;
            unit = "m";
        }
        else if (value >= 1L << 10)
        {
            base = 1L << 10;
            unit = "k";
        }
        else
        {
            return Long.toString(value);
        }
        final long whole = value / base;
        final long tenth = whole < 10 ? (value % base) * 10 / base : 0;
        return 0 == tenth ? whole + unit : whole + "." + tenth + unit;
    }

    /**
     * A message count as {@code fi_pingpong} prints it: whole thousands ({@code k}), millions ({@code m}) or
     * billions ({@code b}).
     *
     * @param value the count.
     * @return the short form.
     */
    static String count(final long value)
    {
        if (value >= 1_000_000_000L)
        {
            return value / 1_000_000_000L + "b";
        }
        if (value >= 1_000_000L)
        {
            return value / 1_000_000L + "m";
        }
        if (value >= 1_000L)
        {
            return value / 1_000L + "k";
        }
        return Long.toString(value);
    }
}
