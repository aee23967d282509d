package io.jfabric.cli;

import java.io.PrintWriter;

/**
 * The progress bar of {@code jfabric bench} on standard error: {@code [#####.....]  45% shm tagged 64 B @ 10k/s},
 * redrawn in place with a carriage return. Off (every call does nothing) when standard error is not a terminal or
 * with {@code --quiet}.
 * <p>
 * Called from the command's thread and the rig's listener (the same thread); not thread-safe.
 */
final class BenchProgress
{
    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final boolean on;
    private final double total;
    private double done;
    private String what = "";
    private int lastLength;

    BenchProgress(final PrintWriter err, final boolean on, final double total)
    {
        this.err = err;
        this.on = on;
        this.total = Math.max(1, total);
    }

    /**
     * Whether a bar is drawn: a console is attached (standard error is then a terminal as well in the usual
     * shells) and {@code --quiet} was not given.
     */
    static boolean wanted(final boolean quiet)
    {
        return !quiet && null != System.console();
    }

    void what(final String text)
    {
        what = text;
        draw();
    }

    void advance(final double units)
    {
        done += units;
        draw();
    }

    void clear()
    {
        if (on && lastLength > 0)
        {
            err.print("\r" + " ".repeat(lastLength) + "\r");
            err.flush();
            lastLength = 0;
        }
    }

    private void draw()
    {
        if (!on)
        {
            return;
        }
        final double fraction = Math.min(1.0, done / total);
        final int filled = (int) Math.round(fraction * WIDTH);
        final String line = "[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] " +
            String.format("%3d%% ", Math.round(fraction * 100)) + what;
        err.print("\r" + line + (line.length() < lastLength ? " ".repeat(lastLength - line.length()) : ""));
        err.flush();
        lastLength = line.length();
    }
}
