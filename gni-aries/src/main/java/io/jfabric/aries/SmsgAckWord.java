package io.jfabric.aries;

import org.agrona.collections.Long2ObjectHashMap;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The acknowledgement of an SMSG endpoint's messages as one word in memory instead of a wire frame each (ARIES.md
 * "SMSG acknowledgement word"): the sending endpoint owns the word, every SMSG frame names it (its id) and carries
 * the message's sequence number, and the target NIC, once the message is in the mailbox, stores that sequence number
 * into the word. The sender's engine reads the word while it has messages in flight and raises their local SMSG
 * events in send order, as the ACK frames did. The target reaches the word through a process-wide registry, so only
 * when both NICs live in one process (the in-JVM wire, or two nodes of one JVM on the shm wire); a frame naming a word
 * the target cannot reach is acknowledged by an ACK frame, as before.
 * <p>
 * A message the target refuses (a NACK) freezes the word at its sequence number ({@link #FROZEN}): the sender
 * completes only the messages before it from the word; the NACK and every later acknowledgement of the pairing travel
 * as frames, so that a refused message is never taken for deposited.
 * <p>
 * Threading: {@link #word} is written by the target's engine (under its node's lock) and read by the sender's engine
 * (under the sender's); the rest is the sender's, under its node's lock. The registry is thread-safe.
 */
final class SmsgAckWord
{
    /** Set in {@link #word} by a NACK: the sequence number is the refused message's; the word moves no more. */
    static final long FROZEN = Long.MIN_VALUE;
    private static final VarHandle WORD;
    /** This process's part of every id, so that an id from another process never names a word of this one. */
    private static final long PROCESS_NONCE = (long) ThreadLocalRandom.current().nextInt() << 32;
    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final Long2ObjectHashMap<SmsgAckWord> REGISTRY = new Long2ObjectHashMap<>();

    static
    {
        try
        {
            WORD = MethodHandles.lookup().findVarHandle(SmsgAckWord.class, "word", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** The frames' name of this word, never 0. */
    final long id;
    /** The sending endpoint. */
    final GniEp owner;
    /** Sequence number of the last message deposited (or, with {@link #FROZEN}, refused). */
    private volatile long word;
    private long sent;
    /** Messages in flight, in send order: transaction wire ids and sequence numbers, a ring. */
    private int[] wireIds = new int[16];
    private long[] sequences = new long[16];
    private int head;
    private int tail;
    /** In the engine's list of words to read. */
    boolean waiting;
    private boolean closed;

    private SmsgAckWord(final GniEp owner, final long id)
    {
        this.owner = owner;
        this.id = id;
    }

    /**
     * A word for an endpoint whose SMSG pairing starts, registered (control path).
     *
     * @param owner the sending endpoint.
     * @return the word.
     */
    static SmsgAckWord open(final GniEp owner)
    {
        long id;
        do
        {
            id = PROCESS_NONCE | (NEXT.incrementAndGet() & 0xFFFF_FFFFL);
        }
        while (0 == id);
        final SmsgAckWord word = new SmsgAckWord(owner, id);
        synchronized (REGISTRY)
        {
            REGISTRY.put(id, word);
        }
        return word;
    }

    /**
     * The word a frame names, when it lives in this process and belongs to the pairing the frame travelled on
     * (target side, once per pairing: the target's endpoint caches it).
     *
     * @param id           the frame's word id.
     * @param srcDevice    the frame's source device.
     * @param srcInst      the frame's source inst id.
     * @param targetDevice this node's device address.
     * @param targetInst   the frame's destination inst id.
     * @return the word, or null.
     */
    static SmsgAckWord lookup(
        final long id, final int srcDevice, final int srcInst, final int targetDevice, final int targetInst)
    {
        final SmsgAckWord word;
        synchronized (REGISTRY)
        {
            word = REGISTRY.get(id);
        }
        if (null == word)
        {
            return null;
        }
        final GniEp ep = word.owner;
        return ep.nic.deviceAddress == srcDevice && ep.nic.instId == srcInst && ep.remoteDevice == targetDevice &&
            ep.remoteInst == targetInst ? word : null;
    }

    /**
     * The pairing ends (unbind, detach, close): the word leaves the registry; a target still holding it writes into
     * nothing that is read.
     */
    void close()
    {
        if (!closed)
        {
            closed = true;
            synchronized (REGISTRY)
            {
                REGISTRY.remove(id);
            }
        }
    }

    /**
     * @return words registered in this process (for tests).
     */
    static int registered()
    {
        synchronized (REGISTRY)
        {
            return REGISTRY.size();
        }
    }

    // ---- target side --------------------------------------------------------------------------------------------

    /**
     * Record a message's outcome (target side).
     *
     * @param sequence the message's sequence number, from its frame.
     * @param refused  the message is refused (a NACK frame follows): the word freezes.
     * @return true when the word carries the acknowledgement; false when it is frozen (an ACK frame must go).
     */
    boolean acknowledge(final long sequence, final boolean refused)
    {
        if ((word & FROZEN) != 0)
        {
            return false;
        }
        WORD.setRelease(this, refused ? sequence | FROZEN : sequence);
        return !refused;
    }

    // ---- sender side --------------------------------------------------------------------------------------------

    /**
     * A message goes: record it in flight.
     *
     * @param wireId its transaction's wire id.
     * @return its sequence number, for its frame.
     */
    long track(final int wireId)
    {
        if (tail - head == wireIds.length)
        {
            grow();
        }
        final long sequence = ++sent;
        final int at = tail & (wireIds.length - 1);
        wireIds[at] = wireId;
        sequences[at] = sequence;
        tail++;
        return sequence;
    }

    private void grow()
    {
        final int length = wireIds.length;
        final int[] ids = new int[length * 2];
        final long[] seqs = new long[length * 2];
        for (int i = 0; i < length; i++)
        {
            ids[i] = wireIds[(head + i) & (length - 1)];
            seqs[i] = sequences[(head + i) & (length - 1)];
        }
        wireIds = ids;
        sequences = seqs;
        tail = length;
        head = 0;
    }

    /**
     * @return no message in flight.
     */
    boolean isEmpty()
    {
        return head == tail;
    }

    /**
     * @return the word as last stored by the target (acquire).
     */
    long word()
    {
        return word;
    }

    /**
     * @return the oldest message in flight's transaction wire id ({@link #isEmpty()} false).
     */
    int headWireId()
    {
        return wireIds[head & (wireIds.length - 1)];
    }

    /**
     * @return the oldest message in flight's sequence number ({@link #isEmpty()} false).
     */
    long headSequence()
    {
        return sequences[head & (sequences.length - 1)];
    }

    /**
     * The oldest message in flight is done with.
     */
    void pop()
    {
        head++;
    }

    /**
     * @param sequence a sequence number.
     * @param word     the word, as read.
     * @return whether the word says that message was deposited.
     */
    static boolean acknowledged(final long sequence, final long word)
    {
        final long last = word & ~FROZEN;
        return (word & FROZEN) != 0 ? sequence < last : sequence <= last;
    }

    @Override
    public String toString()
    {
        return "SmsgAckWord[id=" + Long.toHexString(id) + ", sent=" + sent + ", word=" + Long.toHexString(word) +
            ", inFlight=" + (tail - head) + "]";
    }
}
