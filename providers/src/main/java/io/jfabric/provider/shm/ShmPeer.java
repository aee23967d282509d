package io.jfabric.provider.shm;

import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a domain knows about one peer domain (a name): its mapped ring file (header: liveness, pool), the lane file
 * this domain writes frames into it with, and whether the owner is alive. Entry index 0 is the domain itself. An
 * entry lives as long as the domain: a peer that dies and comes back under the same name gets the same entry, hence
 * the same peer keys and {@code fi_addr}s.
 * <p>
 * Threading: {@link #state} is volatile (the control path reads it); {@link #pending} hands a newly mapped file
 * from the control path to the agent; everything else is owned by the domain agent once the entry is published.
 */
final class ShmPeer
{
    /** The owner is alive and its ring is mapped. */
    static final int LIVE = 1;
    /** Nobody (known) owns the name: offers fail with EIO; reattached on demand. */
    static final int DEAD = 2;

    final int index;
    final String name;
    final byte[] nameAscii;
    final AtomicReference<Attachment> pending = new AtomicReference<>();
    volatile int state = DEAD;
    ShmRingFile file;
    /** Our lane file into it (we are its only writer). */
    ShmLaneFile lane;
    /** Our request ring into it. */
    OneToOneRingBuffer ring;
    /** Our answer ring into it. */
    OneToOneRingBuffer answers;
    /** Incarnation of the mapped (or last mapped) ring file. */
    long incarnation;
    long nextReattachMs;
    /** Its shared pool mapped read-only, once a rendezvous from a pool block came (null until then). */
    ShmPeerPool pool;
    /** The incarnation whose pool could not be mapped (not asked again for it). */
    long poolFailedIncarnation;
    long nextProcessCheckMs;

    ShmPeer(final int index, final String name)
    {
        this.index = index;
        this.name = name;
        this.nameAscii = name.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A peer's ring file mapped, our lane file into it mapped and announced in its sender table.
     *
     * @param file the peer's ring file.
     * @param lane our lane file into it.
     */
    record Attachment(ShmRingFile file, ShmLaneFile lane)
    {
        /**
         * Unmap both (the lane file stays: its reader drains it).
         */
        void close()
        {
            lane.close();
            file.close();
        }
    }

    @Override
    public String toString()
    {
        return "ShmPeer{" + index + ", " + name + ", " + (LIVE == state ? "live" : "dead") + "}";
    }
}
