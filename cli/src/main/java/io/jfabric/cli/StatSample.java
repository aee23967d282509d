package io.jfabric.cli;

import io.jfabric.stat.CountersFile;
import io.jfabric.stat.DomainCounters;
import io.jfabric.stat.StatReader;
import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The counters of one process read at one moment, grouped per domain (the domain id in each counter's key): the
 * runtime's per-domain counters (runtime/RUNTIME.md, "Counters and error log") by their type, then the counters the
 * domain's transport registered, by label. Each value is a consistent read of that counter, not of the set.
 * <p>
 * Immutable once read; thread-safe.
 */
final class StatSample
{
    /** Type ids of the runtime's per-domain counters, in the order they are printed. */
    static final int[] TYPES = {
        DomainCounters.TYPE_COMMANDS,
        DomainCounters.TYPE_FRAMES_IN,
        DomainCounters.TYPE_FRAMES_OUT,
        DomainCounters.TYPE_BACK_PRESSURE,
        DomainCounters.TYPE_DEFERRED_SENDS,
        DomainCounters.TYPE_UNEXPECTED_DEPTH,
        DomainCounters.TYPE_CQ_FULL_HOLDS,
        DomainCounters.TYPE_PEER_FAILURES,
        DomainCounters.TYPE_DUTY_CYCLES,
        DomainCounters.TYPE_MAX_DUTY_CYCLE_NS,
        DomainCounters.TYPE_ERRORS,
        DomainCounters.TYPE_OWED_DROPS };
    /** Their JSON keys, index for index. */
    static final String[] KEYS = {
        "commands", "framesIn", "framesOut", "backPressure", "deferredSends", "unexpectedDepth", "cqFullHolds",
        "peerFailures", "dutyCycles", "maxDutyCycleNs", "errors", "owedDrops" };
    /** Their text names (the labels' first part), index for index. */
    static final String[] NAMES = {
        "commands", "frames in", "frames out", "back-pressure retries", "deferred sends", "unexpected depth",
        "cq-full holds", "peer failures", "duty cycles", "max duty cycle ns", "errors",
        "requests dropped over peerOwed" };
    /** Index in {@link #TYPES} of the gauges (a level, not a count: no rate in {@code --watch}). */
    static final int UNEXPECTED_DEPTH = 5;
    /** Index in {@link #TYPES} of the maximum (no rate either). */
    static final int MAX_DUTY_CYCLE_NS = 9;

    /**
     * One domain's counters.
     */
    static final class Domain
    {
        final int id;
        String provider = "?";
        String name = "?";
        /** Values by index of {@link #TYPES}; -1 when the file holds no such counter for this domain. */
        final long[] values = new long[TYPES.length];
        /** The transport's counters, label's first part to value, in allocation order. */
        final Map<String, Long> transport = new LinkedHashMap<>();

        Domain(final int id)
        {
            this.id = id;
            Arrays.fill(values, -1);
        }
    }

    final long timeMs;
    final long processErrors;
    final List<Domain> domains;

    private StatSample(final long timeMs, final long processErrors, final List<Domain> domains)
    {
        this.timeMs = timeMs;
        this.processErrors = processErrors;
        this.domains = domains;
    }

    /**
     * Read every allocated counter of a file now.
     *
     * @param reader an open reader.
     * @return the sample.
     */
    static StatSample read(final StatReader reader)
    {
        final CountersReader counters = reader.counters();
        final TreeMap<Integer, Domain> domains = new TreeMap<>();
        final long[] processErrors = { 0 };
        counters.forEach((counterId, typeId, key, label) ->
        {
            final long value = counters.getCounterValue(counterId);
            if (CountersFile.TYPE_PROCESS_ERRORS == typeId)
            {
                processErrors[0] = value;
                return;
            }
            // key: pid (64), domain id (32), as DomainCounters writes it
            final Domain domain = domains.computeIfAbsent(key.getInt(8), Domain::new);
            final int colon = label.indexOf(": ");
            final String what = colon < 0 ? label : label.substring(0, colon);
            if (colon >= 0 && "?".equals(domain.provider))
            {
                describe(domain, label.substring(colon + 2));
            }
            final int index = indexOf(typeId);
            if (index >= 0)
            {
                domain.values[index] = value;
            }
            else
            {
                domain.transport.put(what, value);
            }
        });
        return new StatSample(System.currentTimeMillis(), processErrors[0], new ArrayList<>(domains.values()));
    }

    /**
     * @param domainId a domain id.
     * @return that domain's counters in this sample, or null.
     */
    Domain domain(final int domainId)
    {
        for (final Domain domain : domains)
        {
            if (domain.id == domainId)
            {
                return domain;
            }
        }
        return null;
    }

    private static int indexOf(final int typeId)
    {
        for (int i = 0; i < TYPES.length; i++)
        {
            if (TYPES[i] == typeId)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Provider and domain name from the label's second part, {@code <provider> domain=<name> pid=<pid> id=<id>}.
     */
    private static void describe(final Domain domain, final String rest)
    {
        final int at = rest.indexOf(" domain=");
        if (at < 0)
        {
            return;
        }
        domain.provider = rest.substring(0, at);
        final int end = rest.lastIndexOf(" pid=");
        domain.name = rest.substring(at + " domain=".length(), end > at ? end : rest.length());
    }
}
