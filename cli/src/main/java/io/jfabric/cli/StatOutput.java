package io.jfabric.cli;

import com.google.gson.stream.JsonWriter;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code jfabric stat} prints: the process list, a counters sample (with rates against the previous sample in
 * {@code --watch}) and the distinct error log, as text or as JSON written with Gson's {@link JsonWriter}. Times are
 * epoch milliseconds in JSON ({@code ...Ms}) and ISO-8601 UTC in text.
 * <p>
 * Stateless; thread-safe.
 */
final class StatOutput
{
    /**
     * One distinct error of the log.
     *
     * @param count   times it was seen.
     * @param firstMs when first, epoch ms.
     * @param lastMs  when last, epoch ms.
     * @param text    its stack trace.
     */
    record Error(int count, long firstMs, long lastMs, String text)
    {
    }

    @FunctionalInterface
    private interface Body
    {
        void write(JsonWriter w) throws IOException;
    }

    private StatOutput()
    {
    }

    /**
     * @param dir       the directory listed.
     * @param files     its counters files.
     * @param reclaimed files {@code --reclaim} removed, or null without it.
     * @param nowMs     now.
     * @return the text table.
     */
    static String listText(final String dir, final List<StatFile> files, final List<StatFile> reclaimed,
        final long nowMs)
    {
        final StringBuilder sb = new StringBuilder();
        if (null != reclaimed)
        {
            for (final StatFile file : reclaimed)
            {
                sb.append("reclaimed ").append(file.path()).append(" (pid ").append(file.pid()).append(")\n");
            }
        }
        sb.append(files.size()).append(" counters file").append(files.size() == 1 ? "" : "s").append(" in ")
            .append(dir).append('\n');
        if (!files.isEmpty())
        {
            sb.append(String.format(Locale.ROOT, "%-8s %-7s %-24s %10s  %s%n", "PID", "STATE", "STARTED", "AGE",
                "FILE"));
        }
        for (final StatFile file : files)
        {
            sb.append(String.format(Locale.ROOT, "%-8d %-7s %-24s %10s  %s%s%n", file.pid(), file.state(),
                file.processStartMs() > 0 ? Instant.ofEpochMilli(file.processStartMs()).toString() : "-",
                file.creationMs() > 0 ? seconds(nowMs - file.creationMs()) : "-", file.path(),
                file.readable() ? "" : "  (corrupt: " + file.defect() + ")"));
        }
        return sb.toString();
    }

    /**
     * @param dir       the directory listed.
     * @param files     its counters files.
     * @param reclaimed files {@code --reclaim} removed, or null without it.
     * @param nowMs     now.
     * @return {@code {"directory", "processes": [...], "reclaimed": [...]}}, indented, with a final newline.
     */
    static String listJson(final String dir, final List<StatFile> files, final List<StatFile> reclaimed,
        final long nowMs)
    {
        return write(true, (w) ->
        {
            w.beginObject();
            w.name("directory").value(dir);
            w.name("timeMs").value(nowMs);
            w.name("processes").beginArray();
            for (final StatFile file : files)
            {
                file(w, file, nowMs);
            }
            w.endArray();
            if (null != reclaimed)
            {
                w.name("reclaimed").beginArray();
                for (final StatFile file : reclaimed)
                {
                    w.beginObject().name("pid").value(file.pid()).name("file").value(file.path().toString())
                        .endObject();
                }
                w.endArray();
            }
            w.endObject();
        });
    }

    /**
     * @param file     the process's file.
     * @param sample   its counters now.
     * @param previous the sample before (rates per second), or null.
     * @return the text block.
     */
    static String sampleText(final StatFile file, final StatSample sample, final StatSample previous)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append(Instant.ofEpochMilli(sample.timeMs)).append("  pid ").append(file.pid()).append(' ')
            .append(file.state()).append(", started ")
            .append(file.processStartMs() > 0 ? Instant.ofEpochMilli(file.processStartMs()).toString() : "-")
            .append(", file age ").append(seconds(sample.timeMs - file.creationMs())).append('\n');
        sb.append("  file ").append(file.path()).append('\n');
        sb.append("  process errors ").append(sample.processErrors).append('\n');
        final double seconds = null == previous ? 0 : (sample.timeMs - previous.timeMs) / 1000.0;
        for (final StatSample.Domain domain : sample.domains)
        {
            final StatSample.Domain before = null == previous ? null : previous.domain(domain.id);
            sb.append("  domain ").append(domain.id).append(": ").append(domain.provider).append(' ')
                .append(domain.name).append('\n');
            for (int i = 0; i < StatSample.TYPES.length; i++)
            {
                if (domain.values[i] < 0)
                {
                    continue;
                }
                final boolean counts = i != StatSample.UNEXPECTED_DEPTH && i != StatSample.MAX_DUTY_CYCLE_NS;
                line(sb, StatSample.NAMES[i], domain.values[i],
                    counts && null != before && before.values[i] >= 0 && seconds > 0 ?
                    (domain.values[i] - before.values[i]) / seconds : Double.NaN);
            }
            for (final Map.Entry<String, Long> entry : domain.transport.entrySet())
            {
                final Long was = null == before ? null : before.transport.get(entry.getKey());
                line(sb, entry.getKey(), entry.getValue(),
                    null != was && seconds > 0 ? (entry.getValue() - was) / seconds : Double.NaN);
            }
        }
        return sb.toString();
    }

    /**
     * @param file   the process's file.
     * @param sample its counters now.
     * @param indent indented (one sample) or one line (a line per sample in {@code --watch}).
     * @return the JSON object, with a final newline.
     */
    static String sampleJson(final StatFile file, final StatSample sample, final boolean indent)
    {
        return write(indent, (w) ->
        {
            w.beginObject();
            w.name("timeMs").value(sample.timeMs);
            processFields(w, file, sample.timeMs);
            w.name("processErrors").value(sample.processErrors);
            w.name("domains").beginArray();
            for (final StatSample.Domain domain : sample.domains)
            {
                w.beginObject();
                w.name("id").value(domain.id);
                w.name("provider").value(domain.provider);
                w.name("name").value(domain.name);
                w.name("counters").beginObject();
                for (int i = 0; i < StatSample.TYPES.length; i++)
                {
                    if (domain.values[i] >= 0)
                    {
                        w.name(StatSample.KEYS[i]).value(domain.values[i]);
                    }
                }
                w.endObject();
                w.name("transport").beginObject();
                for (final Map.Entry<String, Long> entry : domain.transport.entrySet())
                {
                    w.name(entry.getKey()).value(entry.getValue());
                }
                w.endObject();
                w.endObject();
            }
            w.endArray();
            w.endObject();
        });
    }

    /**
     * @param file   the process's file.
     * @param errors its distinct errors.
     * @return the text: one block per distinct error.
     */
    static String errorsText(final StatFile file, final List<Error> errors)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append(errors.size()).append(" distinct error").append(errors.size() == 1 ? "" : "s").append(" of pid ")
            .append(file.pid()).append(" (").append(file.state()).append(", ").append(file.path()).append(")\n");
        for (final Error error : errors)
        {
            sb.append('\n').append(error.count()).append(" observation").append(error.count() == 1 ? "" : "s")
                .append(", first ").append(Instant.ofEpochMilli(error.firstMs())).append(", last ")
                .append(Instant.ofEpochMilli(error.lastMs())).append('\n');
            sb.append(error.text());
            if (!error.text().endsWith("\n"))
            {
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * @param file   the process's file.
     * @param errors its distinct errors.
     * @param nowMs  now.
     * @return {@code {"pid", ..., "errors": [{"count", "firstMs", "lastMs", "text"}]}}, indented.
     */
    static String errorsJson(final StatFile file, final List<Error> errors, final long nowMs)
    {
        return write(true, (w) ->
        {
            w.beginObject();
            w.name("timeMs").value(nowMs);
            processFields(w, file, nowMs);
            w.name("errors").beginArray();
            for (final Error error : errors)
            {
                w.beginObject();
                w.name("count").value(error.count());
                w.name("firstMs").value(error.firstMs());
                w.name("lastMs").value(error.lastMs());
                w.name("text").value(error.text());
                w.endObject();
            }
            w.endArray();
            w.endObject();
        });
    }

    private static void file(final JsonWriter w, final StatFile file, final long nowMs) throws IOException
    {
        w.beginObject();
        processFields(w, file, nowMs);
        if (!file.readable())
        {
            w.name("defect").value(file.defect());
        }
        w.endObject();
    }

    private static void processFields(final JsonWriter w, final StatFile file, final long nowMs) throws IOException
    {
        w.name("pid").value(file.pid());
        w.name("state").value(file.state());
        w.name("file").value(file.path().toString());
        w.name("processStartMs").value(file.processStartMs());
        w.name("createdMs").value(file.creationMs());
        w.name("fileAgeMs").value(file.creationMs() > 0 ? nowMs - file.creationMs() : -1);
    }

    private static void line(final StringBuilder sb, final String name, final long value, final double rate)
    {
        sb.append(String.format(Locale.ROOT, "    %-26s %20d", name, value));
        if (!Double.isNaN(rate))
        {
            sb.append(String.format(Locale.ROOT, "  %14.0f/s", rate));
        }
        sb.append('\n');
    }

    private static String seconds(final long ms)
    {
        return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    private static String write(final boolean indent, final Body body)
    {
        final StringWriter out = new StringWriter();
        try (JsonWriter w = new JsonWriter(out))
        {
            if (indent)
            {
                w.setIndent("  ");
            }
            body.write(w);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return out + "\n";
    }
}
