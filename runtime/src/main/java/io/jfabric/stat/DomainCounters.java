package io.jfabric.stat;

import io.jfabric.spi.TransportCounters;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.ArrayList;

/**
 * The counters of one open domain in this process's {@link CountersFile}, allocated when the domain opens and freed
 * when it closes. Each is labelled {@code <what>: <provider> domain=<name> pid=<pid> id=<domain id>}; its key holds
 * the pid (64) and the domain id (32), its type id says what it counts ({@link #TYPE_COMMANDS} ...).
 * <p>
 * Threading: the {@code on*} methods and the pass-through counts are for the domain agent's thread only (one
 * writer: release stores, no atomic read-modify-write, no allocation); {@link #onError} and
 * {@link #newCounter(String)} may be called by any thread; {@link #close()} once, by the closing thread, after the
 * agent has stopped.
 */
public final class DomainCounters implements ErrorHandler, TransportCounters, AutoCloseable
{
    /** Commands the agent consumed from the domain's control, receive and send rings. */
    public static final int TYPE_COMMANDS = 1001;
    /** Frames the agent consumed from the transport. */
    public static final int TYPE_FRAMES_IN = 1002;
    /** Frames the transport accepted from the agent. */
    public static final int TYPE_FRAMES_OUT = 1003;
    /** Offers the transport answered with 0 (the peer's ring or stream was full: the agent retries later). */
    public static final int TYPE_BACK_PRESSURE = 1004;
    /** Sends parked in a peer's FIFO: no flow-control credit, the peer's ring full, or behind earlier parked sends. */
    public static final int TYPE_DEFERRED_SENDS = 1005;
    /** Gauge: messages the matching engines hold unmatched, sampled every {@link #SAMPLE_CYCLES} duty cycles. */
    public static final int TYPE_UNEXPECTED_DEPTH = 1006;
    /** Arrivals held in an endpoint's FIFO because its completion queue was full (or behind such an arrival). */
    public static final int TYPE_CQ_FULL_HOLDS = 1007;
    /** Offers the transport refused with an error (the peer is unreachable, dead or closed). */
    public static final int TYPE_PEER_FAILURES = 1008;
    /** Duty cycles the agent ran. */
    public static final int TYPE_DUTY_CYCLES = 1009;
    /** The longest duty cycle so far among the timed ones (one in {@link #TIMED_CYCLES}), nanoseconds. */
    public static final int TYPE_MAX_DUTY_CYCLE_NS = 1010;
    /** Errors the domain's agent threw (each also in the error log and the process's error counter). */
    public static final int TYPE_ERRORS = 1011;
    /**
     * Requests dropped because their peer endpoint ignored the request window: it already had
     * {@code jfabric.flow.peerOwed} requests awaiting answers at one endpoint of the domain.
     */
    public static final int TYPE_OWED_DROPS = 1012;
    /** A counter a transport registered ({@link TransportCounters}). */
    public static final int TYPE_TRANSPORT = 1100;
    /** The agent samples its gauges (the unexpected-queue depth) once every this many duty cycles. */
    public static final int SAMPLE_CYCLES = 256;
    /**
     * One duty cycle in this many is timed: {@code System.nanoTime()} costs 25 ns on a TSC clock but 70-120 ns on
     * the build VM's {@code kvm-clock}, and timing every cycle added about 550 ns to a 1.1 us MANUAL inproc round
     * trip there (several duty cycles per round trip). One in 64 still put {@code proposeMaxRelease} and the clock
     * read beside it at 12 % of a MANUAL inproc profile (issue 16); one in 1024 keeps the clock out of all but a
     * thousandth of the cycles and still times thousands of cycles a second on a busy agent.
     */
    public static final int TIMED_CYCLES = 1024;

    private final CountersFile file;
    private final String suffix;
    private final int domainId;
    private final ArrayList<AtomicCounter> transportCounters = new ArrayList<>();
    private final AtomicCounter commands;
    private final AtomicCounter framesIn;
    private final AtomicCounter framesOut;
    private final AtomicCounter backPressure;
    private final AtomicCounter deferredSends;
    private final AtomicCounter unexpectedDepth;
    private final AtomicCounter cqFullHolds;
    private final AtomicCounter peerFailures;
    private final AtomicCounter dutyCycles;
    private final AtomicCounter maxDutyCycleNs;
    private final AtomicCounter errors;
    private final AtomicCounter owedDrops;
    private boolean closed;
    /** Agent thread: the current duty cycle is timed. */
    private boolean timing;

    private DomainCounters(final CountersFile file, final String provider, final String domain)
    {
        this.file = file;
        this.domainId = file.nextDomainId();
        this.suffix = ": " + provider + " domain=" + domain + " pid=" + CountersFile.PID + " id=" + domainId;
        commands = counter(TYPE_COMMANDS, "commands");
        framesIn = counter(TYPE_FRAMES_IN, "frames in");
        framesOut = counter(TYPE_FRAMES_OUT, "frames out");
        backPressure = counter(TYPE_BACK_PRESSURE, "back-pressure retries");
        deferredSends = counter(TYPE_DEFERRED_SENDS, "deferred sends");
        unexpectedDepth = counter(TYPE_UNEXPECTED_DEPTH, "unexpected depth");
        cqFullHolds = counter(TYPE_CQ_FULL_HOLDS, "cq-full holds");
        peerFailures = counter(TYPE_PEER_FAILURES, "peer failures");
        dutyCycles = counter(TYPE_DUTY_CYCLES, "duty cycles");
        maxDutyCycleNs = counter(TYPE_MAX_DUTY_CYCLE_NS, "max duty cycle ns");
        errors = counter(TYPE_ERRORS, "errors");
        owedDrops = counter(TYPE_OWED_DROPS, "requests dropped over peerOwed");
    }

    /**
     * Allocate a domain's counters in this process's counters file (creating the file for the first domain).
     * Control path, thread-safe.
     *
     * @param provider the provider's name.
     * @param domain   the domain's name.
     * @return the counters; {@link #close()} them when the domain closes.
     */
    public static DomainCounters open(final String provider, final String domain)
    {
        final CountersFile file = CountersFile.acquire();
        try
        {
            return new DomainCounters(file, provider, domain);
        }
        catch (final RuntimeException ex)
        {
            file.release();
            throw ex;
        }
    }

    private AtomicCounter counter(final int typeId, final String what)
    {
        final String label = what + suffix;
        final int id = domainId;
        return file.newCounter(typeId, label.length() > 380 ? label.substring(0, 380) : label,
            (key) ->
            {
                key.putLong(0, CountersFile.PID);
                key.putInt(8, id);
            });
    }

    /**
     * @return this domain's id in the counters file (in every counter's key and label).
     */
    public int domainId()
    {
        return domainId;
    }

    /**
     * @return the counters file the counters live in.
     */
    public CountersFile file()
    {
        return file;
    }

    /**
     * Count commands consumed; returns its argument so that it wraps a ring read. Agent thread.
     *
     * @param count commands consumed by one ring read.
     * @return {@code count}.
     */
    public int commands(final int count)
    {
        if (count > 0)
        {
            commands.getAndAddRelease(count);
        }
        return count;
    }

    /**
     * Count frames consumed from the transport; returns its argument so that it wraps a poll. Agent thread.
     *
     * @param count frames one poll consumed.
     * @return {@code count}.
     */
    public int framesIn(final int count)
    {
        if (count > 0)
        {
            framesIn.getAndAddRelease(count);
        }
        return count;
    }

    /**
     * Count an offer's outcome: 1 a frame out, 0 a back-pressure retry, negative a peer failure. Agent thread.
     *
     * @param result what {@code DomainTransport.offer} returned.
     */
    public void onOffer(final int result)
    {
        if (result > 0)
        {
            framesOut.incrementRelease();
        }
        else if (0 == result)
        {
            backPressure.incrementRelease();
        }
        else
        {
            peerFailures.incrementRelease();
        }
    }

    /**
     * A send was parked in its peer's FIFO. Agent thread.
     */
    public void onDeferredSend()
    {
        deferredSends.incrementRelease();
    }

    /**
     * An arrival was held because its endpoint's completion queue was full. Agent thread.
     */
    public void onCqFullHold()
    {
        cqFullHolds.incrementRelease();
    }

    /**
     * A peer failure the agent learnt of other than by an offer. Agent thread.
     */
    public void onPeerFailure()
    {
        peerFailures.incrementRelease();
    }

    /**
     * A peer's request was dropped: the peer ignored the request window. Agent thread.
     */
    public void onOwedDrop()
    {
        owedDrops.incrementRelease();
    }

    /**
     * Set the unexpected-queue depth gauge: messages the domain's matching engines hold unmatched. Agent thread.
     *
     * @param depth the messages.
     */
    public void unexpectedDepth(final long depth)
    {
        unexpectedDepth.setRelease(depth);
    }

    /**
     * A duty cycle begins. Agent thread.
     *
     * @return the start time to pass to {@link #onDutyCycle}: {@code System.nanoTime()} for one cycle in
     * {@link #TIMED_CYCLES}, else 0 (not read).
     */
    public long cycleStart()
    {
        timing = 0 == (dutyCycles.getPlain() & (TIMED_CYCLES - 1));
        return timing ? System.nanoTime() : 0;
    }

    /**
     * A duty cycle ended: count it and, when it was timed, keep the longest. Agent thread.
     *
     * @param startNs what {@link #cycleStart()} returned.
     * @return true once every {@link #SAMPLE_CYCLES} cycles: time for the agent to sample its gauges.
     */
    public boolean onDutyCycle(final long startNs)
    {
        if (timing)
        {
            maxDutyCycleNs.proposeMaxRelease(System.nanoTime() - startNs);
        }
        return 0 == (dutyCycles.incrementRelease() & (SAMPLE_CYCLES - 1));
    }

    /**
     * Count an error of this domain's agent and record it in the error log ({@link CountersFile#onError}). Any
     * thread.
     *
     * @param throwable the error.
     */
    @Override
    public void onError(final Throwable throwable)
    {
        errors.increment();
        file.onError(throwable);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public AtomicCounter newCounter(final String name)
    {
        final AtomicCounter counter = counter(TYPE_TRANSPORT, name);
        synchronized (transportCounters)
        {
            transportCounters.add(counter);
        }
        return counter;
    }

    /**
     * @param typeId one of the {@code TYPE_*} constants of a built-in counter.
     * @return its current value (a volatile read), for tests and tools of this process.
     */
    public long value(final int typeId)
    {
        switch (typeId)
        {
            case TYPE_COMMANDS:
                return commands.get();
            case TYPE_FRAMES_IN:
                return framesIn.get();
            case TYPE_FRAMES_OUT:
                return framesOut.get();
            case TYPE_BACK_PRESSURE:
                return backPressure.get();
            case TYPE_DEFERRED_SENDS:
                return deferredSends.get();
            case TYPE_UNEXPECTED_DEPTH:
                return unexpectedDepth.get();
            case TYPE_CQ_FULL_HOLDS:
                return cqFullHolds.get();
            case TYPE_PEER_FAILURES:
                return peerFailures.get();
            case TYPE_DUTY_CYCLES:
                return dutyCycles.get();
            case TYPE_MAX_DUTY_CYCLE_NS:
                return maxDutyCycleNs.get();
            case TYPE_ERRORS:
                return errors.get();
            case TYPE_OWED_DROPS:
                return owedDrops.get();
            default:
                throw new IllegalArgumentException("not a built-in counter type: " + typeId);
        }
    }

    /**
     * Free the counters (the transport's too) and give back the file reference. Once; after the agent stopped.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        synchronized (transportCounters)
        {
            transportCounters.forEach(CloseHelper::quietClose);
            transportCounters.clear();
        }
        CloseHelper.quietCloseAll(commands, framesIn, framesOut, backPressure, deferredSends, unexpectedDepth,
            cqFullHolds, peerFailures, dutyCycles, maxDutyCycleNs, errors, owedDrops);
        file.release();
    }
}
