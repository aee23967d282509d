package io.jfabric.fault;

import io.jfabric.Errno;

import java.util.ArrayList;
import java.util.List;

/**
 * The faults a {@link FaultLoopbackTransport} applied, in the order it applied them: one {@link Entry} per frame it
 * did something to (frames passed on untouched are only counted).
 * <p>
 * Threading: written by the domain's agent, read by the test thread (synchronized).
 */
public final class FaultTrace
{
    /**
     * One applied fault.
     *
     * @param frameIndex the frame's index among the domain's offered frames.
     * @param kind       what was done.
     * @param frameBytes header and payload bytes of the frame.
     * @param errno      the error answered ({@code FAIL}, {@code PEER_DOWN}), or null.
     * @param polls      duty cycles the frame was held ({@code DELAY}), or its position in its shuffled window
     *                   ({@code REORDER}), else 0.
     */
    public record Entry(int frameIndex, FaultPlan.Kind kind, int frameBytes, Errno errno, int polls)
    {
    }

    private final List<Entry> entries = new ArrayList<>();
    private long passed;
    private long offered;

    synchronized void add(final Entry entry)
    {
        entries.add(entry);
    }

    synchronized void countOffer(final boolean untouched)
    {
        offered++;
        if (untouched)
        {
            passed++;
        }
    }

    /**
     * @return a copy of the entries so far.
     */
    public synchronized List<Entry> entries()
    {
        return new ArrayList<>(entries);
    }

    /**
     * @param kind a kind of fault.
     * @return the entries of that kind so far.
     */
    public synchronized List<Entry> entries(final FaultPlan.Kind kind)
    {
        final List<Entry> out = new ArrayList<>();
        for (final Entry e : entries)
        {
            if (e.kind() == kind)
            {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * @return frames that went through a decision (each once, retries after back-pressure not counted again).
     */
    public synchronized long offered()
    {
        return offered;
    }

    /**
     * @return frames passed on untouched.
     */
    public synchronized long passed()
    {
        return passed;
    }

    @Override
    public synchronized String toString()
    {
        return "FaultTrace{offered=" + offered + ", passed=" + passed + ", entries=" + entries + '}';
    }
}
