package io.jfabric.fault;

import io.jfabric.Errno;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a {@link FaultLoopbackTransport} does to the frames its domain offers, and the {@link FaultTrace} of what it
 * did. Frames are opaque bytes: a rule names a frame by its index among the frames this domain offered (0 for the
 * first, counted once per frame that went through a decision, so a frame retried after back-pressure keeps its
 * index), by its destination (the peer endpoint's address, as {@code fi_getname} gives it) or by a seeded draw.
 * Nothing here reads a frame's layout, so the plan survives changes to the agent's protocol.
 * <p>
 * Faults by index ({@link #fail}, {@link #drop}, {@link #reorder}) and by draw ({@link #delayRandomly}) are fixed
 * before the domain opens; faults by peer ({@link #stall}, {@link #takeDown}, {@link #restore}) may be switched by
 * the test thread while the agent runs (the agent reads them on each offer). The plan never duplicates a frame.
 * <p>
 * Threading: the fixed rules are written by the test thread before the domain opens and read by its agent after
 * (the domain's start publishes them); the per-peer switches are a concurrent map; everything else is the agent's.
 */
public final class FaultPlan
{
    /** What the plan does to one frame. */
    public enum Kind
    {
        /** Passed on untouched. */
        PASS,
        /** The offer answers a negative errno: the frame is not sent. */
        FAIL,
        /** The offer answers "sent" but the frame is thrown away. */
        DROP,
        /** Held for some duty cycles of the domain, behind which later frames to the same peer wait (FIFO kept). */
        DELAY,
        /** Held in a window whose frames are passed on in a seeded shuffled order. */
        REORDER,
        /** The offer answers back-pressure (0): the agent keeps the frame and offers it again later. */
        STALL,
        /** The destination peer is down: the offer answers the plan's errno for that peer. */
        PEER_DOWN
    }

    private final long seed;
    private final SplittableRandom random;
    private final Map<Integer, Errno> failAt = new ConcurrentHashMap<>();
    private final Map<Integer, Boolean> dropAt = new ConcurrentHashMap<>();
    private final Map<String, Errno> downPeers = new ConcurrentHashMap<>();
    private final Map<String, Boolean> stalledPeers = new ConcurrentHashMap<>();
    /** Extra copies of every frame this domain hands the wrapped transport (a forger); 0: none. */
    private volatile int forgedCopies;
    private final FaultTrace trace = new FaultTrace();
    private int reorderFrom = -1;
    private int reorderCount;
    private int reorderMaxPolls;
    private double delayProbability;
    private int delayMaxPolls;

    /**
     * @param seed the seed of every draw (delays, shuffles): the same seed and frames give the same faults.
     */
    public FaultPlan(final long seed)
    {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    /**
     * @return the seed.
     */
    public long seed()
    {
        return seed;
    }

    /**
     * Fail the offer of frame {@code frameIndex} with {@code errno} (the transport answers {@code -errno}).
     *
     * @param frameIndex the frame.
     * @param errno      the error.
     * @return this.
     */
    public FaultPlan fail(final int frameIndex, final Errno errno)
    {
        failAt.put(frameIndex, errno);
        return this;
    }

    /**
     * Drop frame {@code frameIndex}: its offer succeeds, the frame never arrives.
     *
     * @param frameIndex the frame.
     * @return this.
     */
    public FaultPlan drop(final int frameIndex)
    {
        dropAt.put(frameIndex, Boolean.TRUE);
        return this;
    }

    /**
     * Hold frames {@code fromFrame} to {@code fromFrame + count - 1} and pass them on in a seeded shuffled order once
     * all are held, or {@code maxPolls} duty cycles after the first was held, whichever comes first.
     *
     * @param fromFrame the first frame of the window.
     * @param count     frames in the window.
     * @param maxPolls  duty cycles a partly filled window waits.
     * @return this.
     */
    public FaultPlan reorder(final int fromFrame, final int count, final int maxPolls)
    {
        reorderFrom = fromFrame;
        reorderCount = count;
        reorderMaxPolls = maxPolls;
        return this;
    }

    /**
     * Delay each frame outside the reorder window with probability {@code probability} by 1 to {@code maxPolls}
     * duty cycles of the domain (drawn from the seed); later frames to the same peer queue behind a delayed one, so
     * a delay never reorders.
     *
     * @param probability of a delay, 0 to 1.
     * @param maxPolls    the longest delay.
     * @return this.
     */
    public FaultPlan delayRandomly(final double probability, final int maxPolls)
    {
        delayProbability = probability;
        delayMaxPolls = maxPolls;
        return this;
    }

    /**
     * From now on every offer to {@code peerAddress} answers back-pressure (the peer stops reading).
     *
     * @param peerAddress the peer endpoint's address.
     * @return this.
     */
    public FaultPlan stall(final byte[] peerAddress)
    {
        stalledPeers.put(key(peerAddress), Boolean.TRUE);
        return this;
    }

    /**
     * From now on every offer to {@code peerAddress} answers {@code -errno}, as a transport that lost the peer does
     * (today's "peer down": {@code EHOSTUNREACH} for a domain that is gone, {@code ENOENT} for an unknown one).
     *
     * @param peerAddress the peer endpoint's address.
     * @param errno       the error.
     * @return this.
     */
    public FaultPlan takeDown(final byte[] peerAddress, final Errno errno)
    {
        downPeers.put(key(peerAddress), errno);
        return this;
    }

    /**
     * Undo {@link #stall} and {@link #takeDown} for {@code peerAddress}.
     *
     * @param peerAddress the peer endpoint's address.
     * @return this.
     */
    public FaultPlan restore(final byte[] peerAddress)
    {
        stalledPeers.remove(key(peerAddress));
        downPeers.remove(key(peerAddress));
        return this;
    }

    /**
     * @return the faults applied so far.
     */
    public FaultTrace trace()
    {
        return trace;
    }

    // ---------------------------------------------------------------- read by the transport (agent thread)

    Errno failureOf(final int frameIndex)
    {
        return failAt.get(frameIndex);
    }

    boolean dropped(final int frameIndex)
    {
        return dropAt.containsKey(frameIndex);
    }

    boolean inReorderWindow(final int frameIndex)
    {
        return reorderFrom >= 0 && frameIndex >= reorderFrom && frameIndex < reorderFrom + reorderCount;
    }

    int reorderCount()
    {
        return reorderCount;
    }

    int reorderMaxPolls()
    {
        return reorderMaxPolls;
    }

    int delayPolls()
    {
        if (delayProbability <= 0 || random.nextDouble() >= delayProbability)
        {
            return 0;
        }
        return 1 + random.nextInt(Math.max(1, delayMaxPolls));
    }

    <T> void shuffle(final List<T> frames)
    {
        for (int i = frames.size() - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            final T t = frames.get(i);
            frames.set(i, frames.get(j));
            frames.set(j, t);
        }
    }

    Errno downErrno(final byte[] peerAddress)
    {
        return downPeers.isEmpty() ? null : downPeers.get(key(peerAddress));
    }

    /**
     * From now on every frame this domain offers and the wrapped transport takes is offered {@code copies} more
     * times, each a copy of the same bytes (copies the wrapped transport refuses are lost): a peer that ignores the
     * request window, as a forger or another implementation could, whose requests its target never counted.
     *
     * @param copies extra copies per frame; 0 stops forging.
     * @return this.
     */
    public FaultPlan forge(final int copies)
    {
        forgedCopies = Math.max(0, copies);
        return this;
    }

    int forgedCopies()
    {
        return forgedCopies;
    }

    boolean stalled(final byte[] peerAddress)
    {
        return !stalledPeers.isEmpty() && stalledPeers.containsKey(key(peerAddress));
    }

    private static String key(final byte[] address)
    {
        return Arrays.toString(address);
    }
}
