package io.jfabric.provider.gni;

import io.jfabric.aries.AriesNode;
import io.jfabric.spi.TransportCounters;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The XPMEM-like on-node rendezvous ({@code GNI_XPMEM_ENABLE}, GNI.md §5): a matched START whose source pieces lie in
 * the sender's shared pool ({@code Domain.allocateShared} of a gni domain on the shm wire, the wire's shm pool) is
 * served by copying straight from the receiver's read-only mapping of that pool into the receive's segments, with
 * no GET and no frame; the FIN follows as after the GETs. The START needs nothing more than it carries: the sender's
 * node (device and instance, from the VC) names the wire peer whose pool is meant (the shm transport ties the pool
 * file to the peer's ring incarnation), and the pieces' addresses, translated by the pool header's base, are the
 * offsets. Any piece that cannot be read directly (outside the pool, the peer gone, the in-JVM wire) sends the
 * whole pull down the GET path, which rewrites every byte.
 * <p>
 * Threading: the domain agent's thread; the statistic is read from any thread.
 */
final class GniDirectCopy
{
    private final AriesNode node;
    private final GniDomainOps ops;
    private final AtomicLong copies = new AtomicLong();
    private AtomicCounter counter;

    GniDirectCopy(final AriesNode node, final GniDomainOps ops)
    {
        this.node = node;
        this.ops = ops;
    }

    /**
     * Count in the process's counters file: {@code gni rendezvous direct copies (XPMEM)}.
     */
    void registerCounters(final TransportCounters counters)
    {
        counter = counters.newCounter("gni rendezvous direct copies (XPMEM)");
    }

    /**
     * @return rendezvous receives served by a direct copy so far.
     */
    long copies()
    {
        return copies.get();
    }

    /**
     * Copy the message of the START at {@code at} in {@code starts} into the receive's segments, up to their total
     * length (a truncating receive gets the message's head).
     *
     * @return true when every byte was copied directly; false when the GET path must serve it (the option off, a
     * piece outside the sender's pool, the sender gone).
     */
    boolean copy(
        final GniVc vc, final DirectBuffer starts, final int at, final long[] segmentAddress,
        final long[] segmentLength, final int segmentOffset, final int segmentCount)
    {
        if (0 == ops.value(GniOps.GNI_XPMEM_ENABLE))
        {
            return false;
        }
        final long n = starts.getLong(at + 32);
        long room = 0;
        for (int k = 0; k < segmentCount; k++)
        {
            room += segmentLength[segmentOffset + k];
        }
        long remaining = Math.min(n, room);
        final int pieces = GniRendezvousStart.pieces(starts, at);
        int k = 0;
        long used = 0;
        for (int j = 0; j < pieces && remaining > 0; j++)
        {
            final long address = GniRendezvousStart.address(starts, at, j);
            final long length = Math.min(GniRendezvousStart.length(starts, at, j, n), remaining);
            long done = 0;
            while (done < length)
            {
                while (used == segmentLength[segmentOffset + k])
                {
                    k++;
                    used = 0;
                }
                final long chunk = Math.min(length - done, segmentLength[segmentOffset + k] - used);
                if (!node.directCopy(vc.peerDevice, vc.peerInst, address + done,
                    segmentAddress[segmentOffset + k] + used, chunk))
                {
                    return false;
                }
                done += chunk;
                used += chunk;
            }
            remaining -= length;
        }
        copies.incrementAndGet();
        if (null != counter)
        {
            counter.incrementRelease();
        }
        return true;
    }
}
