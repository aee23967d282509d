package io.jfabric.provider.shm;

import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a domain knows about one peer domain (a name): the mapped ring it writes frames into, the slot it writes
 * them with, and whether the owner is alive. Entry index 0 is the domain itself. An entry lives as long as the
 * domain: a peer that dies and comes back under the same name gets the same entry, hence the same peer keys and
 * {@code fi_addr}s.
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
    final AtomicReference<ShmRingFile> pending = new AtomicReference<>();
    volatile int state = DEAD;
    ShmRingFile file;
    /** Its request ring. */
    ManyToOneRingBuffer ring;
    /** Its answer ring. */
    ManyToOneRingBuffer answers;
    /** Our record type in its ring: our sender slot + 1. */
    int typeId;
    /** Incarnation of the mapped (or last mapped) ring file. */
    long incarnation;
    /** The slot this peer writes into our ring with, -1 when unknown. */
    int inboundSlot = -1;
    long inboundIncarnation;
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

    @Override
    public String toString()
    {
        return "ShmPeer{" + index + ", " + name + ", " + (LIVE == state ? "live" : "dead") + "}";
    }
}
