package io.jfabric.provider.shm;

import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * Reader side of one writer incarnation's lane file ({@link ShmLaneFile}): found through its sender slot, polled by
 * the domain agent, dropped (file removed, slot released) once its writer is dead and nothing committed is left.
 * Agent thread only.
 */
final class ShmInboundLane
{
    final int slot;
    final long writer;
    final String writerName;
    /** The peer entry frames of this lane are attributed to (source key, flow-control account). */
    final int entry;
    final ShmLaneFile file;
    final OneToOneRingBuffer requests;
    final OneToOneRingBuffer answers;
    /** Next liveness look at the writer, once it is no longer the live incarnation of its entry. */
    long nextCheckMs;

    ShmInboundLane(final int slot, final long writer, final String writerName, final int entry, final ShmLaneFile file)
    {
        this.slot = slot;
        this.writer = writer;
        this.writerName = writerName;
        this.entry = entry;
        this.file = file;
        this.requests = file.requests();
        this.answers = file.answers();
    }

    @Override
    public String toString()
    {
        return "ShmInboundLane{slot " + slot + ", " + writerName + ", " + Long.toHexString(writer) + "}";
    }
}
