package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.jfabric.aries.AriesFixture.put;
import static io.jfabric.aries.AriesFixture.register;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Virtual-clock completion times: deterministic values, not durations.
 */
class TimingModelTest
{
    @Test
    void shouldCompleteAtVirtualTimesOfSerialPipe()
    {
        try (AriesFixture fixture = new AriesFixture())
        {
            final TimingModel model = new TimingModel().latencyNs(1_000).hopNs(100).hops(2)
                .bytesPerSecond(1_000_000_000L).bteSetupNs(500);
            final AriesNode a = AriesNode.open(new AriesNode.Context().deviceAddress(1).directory(fixture.directory)
                .jobs(fixture.jobs).wire(fixture.hub.open()).timing(model));
            fixture.nodes.add(a);
            final AriesNode b = fixture.node(2);
            final GniNic nicA = AriesFixture.nic(a, 1);
            final GniNic nicB = AriesFixture.nic(b, 2);
            final GniCq cq = nicA.cqCreate(16);
            final GniEp ep = nicA.epCreate(cq);
            ep.bind(2, 2);
            final UnsafeBuffer local = AriesFixture.memory(1 << 20);
            final UnsafeBuffer remote = AriesFixture.memory(1 << 20);
            final MemHandle lh = register(nicA, local, 0);
            final MemHandle rh = register(nicB, remote, 0);
            assertEquals(0, a.virtualTimeNs());
            // 1 MB at 1 GB/s: the pipe is busy 1_000_000 ns; then 1000 + 2 x 100 + 500 (BTE) ns of latency.
            assertEquals(GniRc.SUCCESS, ep.postRdma(put(TransactionKind.RDMA_PUT, local, lh, 0, remote, rh, 0,
                1_000_000)));
            // 1000 B FMA behind it in the pipe: free at 1_001_000, event 1_200 ns later.
            final PostDescriptor small = put(TransactionKind.FMA_PUT, local, lh, 0, remote, rh, 0, 1_000);
            small.postId = 2;
            assertEquals(GniRc.SUCCESS, ep.postFma(small));
            assertEquals(GniRc.SUCCESS, fixture.nextEvent(cq));
            assertEquals(1_001_700, a.virtualTimeNs());
            assertEquals(GniRc.SUCCESS, fixture.nextEvent(cq));
            assertEquals(2, GniCqEntry.msgId(cq.event()));
            assertEquals(1_002_200, a.virtualTimeNs());
            assertEquals(0, ep.outstanding());
            // The untimed node's clock never moves.
            assertEquals(0, b.virtualTimeNs());
        }
    }
}
