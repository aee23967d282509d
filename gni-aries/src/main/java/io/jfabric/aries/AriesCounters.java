package io.jfabric.aries;

import io.jfabric.stat.CountersFile;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.function.Consumer;

/**
 * A node's {@link AriesStats} published as counters in the process's counters file ({@link CountersFile}), so that
 * another process ({@code io.jfabric.stat.StatReader}, {@code jfabric stat}) can read them while this one runs.
 * <p>
 * One set per node ({@link AriesStats} counts per node, not per NIC): allocated when the node's first NIC attaches,
 * freed when its last NIC detaches or the node closes. Each counter is labelled
 * {@code aries <what>: dev=0x<device address> pid=<pid> inst=<inst id> ptag=<ptag>}, naming the NIC whose attach
 * allocated the set, and keyed by pid (64 bits), device address (32) and that inst id (32). Type ids lie in
 * {@link #TYPE_FIRST}..{@link #TYPE_LAST} (runtime/RUNTIME.md "Counters and error log").
 * <p>
 * Values: the engine copies {@link AriesStats} into the counters at the end of each duty cycle (a plain read of each
 * counter and a release store where the value changed: no allocation), so a post made by an application thread shows
 * after the next engine step.
 * <p>
 * Threading: {@link #open}, {@link #publish} and {@link #close} are called under the node's lock.
 */
public final class AriesCounters
{
    /** First type id of the Aries NIC's counters (the range 1200..1299 is reserved for them). */
    public static final int TYPE_FIRST = 1200;
    /** Type id of the posts of a kind: {@code TYPE_POSTS + kind.ordinal()} ({@link TransactionKind}). */
    public static final int TYPE_POSTS = 1200;
    /** Type id of {@link AriesStats#creditStalls()}. */
    public static final int TYPE_CREDIT_STALLS = 1210;
    /** Type id of {@link AriesStats#cqOverruns()}. */
    public static final int TYPE_CQ_OVERRUNS = 1211;
    /** Type id of {@link AriesStats#retransmits()}. */
    public static final int TYPE_RETRANSMITS = 1212;
    /** Type id of {@link AriesStats#datagramsPosted()}. */
    public static final int TYPE_DATAGRAMS_POSTED = 1213;
    /** Type id of {@link AriesStats#datagramsMatched()}. */
    public static final int TYPE_DATAGRAMS_MATCHED = 1214;
    /** Type id of {@link AriesStats#protectionNacks()}. */
    public static final int TYPE_PROTECTION_NACKS = 1215;
    /** Type id of {@link AriesStats#crossJobDrops()}. */
    public static final int TYPE_CROSS_JOB_DROPS = 1216;
    /** Type id of {@link AriesStats#transactionErrors()}. */
    public static final int TYPE_TRANSACTION_ERRORS = 1217;
    /** Type id of {@link AriesStats#framesSent()}. */
    public static final int TYPE_FRAMES_SENT = 1218;
    /** Type id of {@link AriesStats#framesReceived()}. */
    public static final int TYPE_FRAMES_RECEIVED = 1219;
    /** Type id of {@link AriesStats#backPressured()}. */
    public static final int TYPE_BACK_PRESSURED = 1220;
    /** Last type id reserved for the Aries NIC's counters. */
    public static final int TYPE_LAST = 1299;

    private static final int KINDS = TransactionKind.values().length;
    private static final int SCALARS = TYPE_BACK_PRESSURED - TYPE_CREDIT_STALLS + 1;
    private static final String[] SCALAR_NAMES =
    {
        "credit stalls", "cq overruns", "retransmits", "datagrams posted", "datagrams matched", "protection nacks",
        "cross-job drops", "transaction errors", "frames sent", "frames received", "back-pressured",
    };

    private final CountersFile file;
    /** Posts by kind (index = ordinal), then the scalars in type id order. */
    private final AtomicCounter[] counters = new AtomicCounter[KINDS + SCALARS];
    /** The values last stored, so that a duty cycle compares heap longs instead of reading the mapping back. */
    private final long[] published = new long[KINDS + SCALARS];
    private boolean closed;

    private AriesCounters(final CountersFile file, final int deviceAddress, final int instId, final int ptag)
    {
        this.file = file;
        final long pid = ProcessHandle.current().pid();
        final String suffix = ": dev=0x" + Integer.toHexString(deviceAddress) + " pid=" + pid + " inst=" + instId +
            " ptag=" + ptag;
        final Consumer<MutableDirectBuffer> key = (buffer) ->
        {
            buffer.putLong(0, pid);
            buffer.putInt(8, deviceAddress);
            buffer.putInt(12, instId);
        };
        int i = 0;
        try
        {
            for (final TransactionKind kind : TransactionKind.values())
            {
                counters[i++] = file.newCounter(TYPE_POSTS + kind.ordinal(),
                    "aries " + kind.name().toLowerCase().replace('_', ' ') + " posts" + suffix,
                    key);
            }
            for (int s = 0; s < SCALARS; s++)
            {
                counters[i++] = file.newCounter(TYPE_CREDIT_STALLS + s, "aries " + SCALAR_NAMES[s] + suffix,
                    key);
            }
        }
        catch (final RuntimeException ex)
        {
            freeCounters();
            throw ex;
        }
    }

    /**
     * Allocate a node's counters in this process's counters file (taking a reference to the file). Control path.
     *
     * @param deviceAddress the node's device address.
     * @param instId        the inst id of the NIC whose attach allocates the set.
     * @param ptag          its ptag.
     * @return the counters; {@link #close()} them.
     */
    static AriesCounters open(final int deviceAddress, final int instId, final int ptag)
    {
        final CountersFile file = CountersFile.acquire();
        try
        {
            return new AriesCounters(file, deviceAddress, instId, ptag);
        }
        catch (final RuntimeException ex)
        {
            file.release();
            throw ex;
        }
    }

    /**
     * Copy the statistics into the counters (engine duty cycle: no allocation, a release store per changed value so
     * that a reader of the mapping sees whole values).
     *
     * @param stats the node's statistics.
     */
    void publish(final AriesStats stats)
    {
        final long[] posts = stats.posts;
        for (int k = 0; k < KINDS; k++)
        {
            set(k, posts[k]);
        }
        set(KINDS, stats.creditStalls);
        set(KINDS + 1, stats.cqOverruns);
        set(KINDS + 2, stats.retransmits);
        set(KINDS + 3, stats.datagramsPosted);
        set(KINDS + 4, stats.datagramsMatched);
        set(KINDS + 5, stats.protectionNacks);
        set(KINDS + 6, stats.crossJobDrops);
        set(KINDS + 7, stats.transactionErrors);
        set(KINDS + 8, stats.framesSent);
        set(KINDS + 9, stats.framesReceived);
        set(KINDS + 10, stats.backPressured);
    }

    /**
     * Free the counters and give back the file reference; idempotent. Control path.
     */
    void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        freeCounters();
        file.release();
    }

    private void freeCounters()
    {
        for (final AtomicCounter counter : counters)
        {
            if (null != counter)
            {
                counter.close();
            }
        }
    }

    private void set(final int index, final long value)
    {
        // Only this engine writes the counter: compare with its own last store, a release store when it moved.
        if (published[index] != value)
        {
            published[index] = value;
            counters[index].setRelease(value);
        }
    }
}
