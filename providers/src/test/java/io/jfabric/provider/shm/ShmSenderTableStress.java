package io.jfabric.provider.shm;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The sender table's publication without atomic updates ({@link ShmSenderTable}): a writer publishes itself in a
 * slot (plain stores of its name, then a release store of its incarnation, then of the table's generation) while
 * the table's owner reads it without the lock (the generation, then the incarnation, then the name). r1: generation
 * seen, r2: incarnation seen, r3: 1 when the name read is the writer's whole name, 0 when none was read, -1 when a
 * partial or wrong one was.
 */
@JCStressTest
@Description("shm sender table: a published slot is never seen with an incomplete name or a stale generation")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "nothing published yet")
@Outcome(id = "0, 7, 1", expect = ACCEPTABLE, desc = "the slot seen before its generation: name complete")
@Outcome(id = "1, 7, 1", expect = ACCEPTABLE, desc = "published: name complete")
@Outcome(id = "1, 0, .*", expect = FORBIDDEN, desc = "generation seen without the slot it announces")
@Outcome(id = ".*, 7, -1", expect = FORBIDDEN, desc = "incarnation seen with an incomplete name")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class ShmSenderTableStress
{
    private static final byte[] NAME = "writer-with-a-long-name-0123456789".getBytes(StandardCharsets.US_ASCII);
    private final UnsafeBuffer table = new UnsafeBuffer(ByteBuffer.allocateDirect(ShmRingDescriptor.slotOffset(1)));

    /**
     * A writer takes slot 0 (it holds the table lock; the reader never does).
     */
    @Actor
    public void writer()
    {
        ShmSenderTable.publish(table, 0, 7, 1234, 5678, NAME);
    }

    /**
     * The owner's agent reads the table as {@code refreshLanes} does.
     *
     * @param r result.
     */
    @Actor
    public void reader(final III_Result r)
    {
        final long generation = ShmSenderTable.generation(table);
        final long incarnation = ShmSenderTable.incarnation(table, 0);
        r.r1 = (int) generation;
        r.r2 = (int) incarnation;
        if (0 == incarnation)
        {
            r.r3 = 0;
            return;
        }
        final String name = ShmSenderTable.name(table, 0);
        r.r3 = null != name && name.equals(new String(NAME, StandardCharsets.US_ASCII)) ? 1 : -1;
    }
}
