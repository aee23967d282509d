package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import io.jfabric.aries.AriesNode;
import io.jfabric.aries.FaultPlan;
import io.jfabric.aries.TransactionKind;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A many-to-one flood (GNI.md §3: "no loss under RX-CQ overrun, credit starvation or TXD exhaustion; sends never
 * return EAGAIN for those reasons"): four sender domains each send 200 tagged messages (64 B eager, every tenth one
 * 20 000 B rendezvous) at once to one receiver whose completion queue holds 1 entry, so it takes them one receive at a
 * time. The emulator's fault plan shrinks the receiver's NIC RX CQ to 1 entry at the first mailbox message it
 * receives (a sender's {@code EP_CAPS}, which each VC carries first: the rule names the receiver's node, since the
 * receiver's own {@code EP_CAPS} reach the senders' nodes as early), so the NIC overruns it (counted by the node's
 * {@code AriesStats}); every message arrives exactly once with its bytes.
 */
@Timeout(120)
class GniOverrunFloodTest
{
    private static final int SENDERS = 4;
    private static final int EACH = 200;
    private static final int LARGE = 20_000;

    @AfterEach
    void clear()
    {
        GniFaults.clear();
    }

    private static int length(final int seq)
    {
        return 0 == seq % 10 ? LARGE : 64;
    }

    @Test
    void shouldDeliverEveryMessageOfAFloodIntoAnRxCqOfOneThroughANicCqOverrun()
    {
        final FaultPlan plan = FaultPlan.seeded(15);
        GniFaults.install(plan);
        final Info info = Fabric.getInfo(Info.builder().caps(Flags.MSG | Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).build())
            .domainAttr(DomainAttr.builder().mrMode(MrMode.MMU_NOTIFY).dataProgress(Progress.AUTO).build())
            .build()).get(0);
        try (Fabric fabric = Fabric.open(info);
            Domain receiverDomain = fabric.domain(info, "yield");
            AddressVector rav = receiverDomain.addressVector(AvType.TABLE, SENDERS);
            CompletionQueue rcq = receiverDomain.completionQueue(1, CqFormat.TAGGED);
            Endpoint receiver = receiverDomain.endpoint(info).bind(rav, 0).bind(rcq, Flags.RECV).enable())
        {
            final AriesNode node = GniFaults.node(GniName.device(GniName.parse(receiver.name())));
            assertNotNull(node);
            // No traffic yet: the rule is in place before the first SMSG reaches any node.
            plan.add(FaultPlan.on(TransactionKind.SMSG, FaultPlan.Action.SHRINK_CQ, 1).to(node.deviceAddress()).nth(1));
            final Domain[] domains = new Domain[SENDERS];
            final CompletionQueue[] cqs = new CompletionQueue[SENDERS];
            final Endpoint[] senders = new Endpoint[SENDERS];
            final AddressVector[] avs = new AddressVector[SENDERS];
            final long[] to = new long[SENDERS];
            for (int s = 0; s < SENDERS; s++)
            {
                domains[s] = fabric.domain(info, "yield");
                avs[s] = domains[s].addressVector(AvType.TABLE, 2);
                cqs[s] = domains[s].completionQueue(EACH + 8, CqFormat.TAGGED);
                senders[s] = domains[s].endpoint(info).bind(avs[s], 0).bind(cqs[s], Flags.TRANSMIT).enable();
                to[s] = avs[s].insert(receiver.name());
            }
            final UnsafeBuffer[] payload = new UnsafeBuffer[SENDERS * EACH];
            for (int seq = 0; seq < EACH; seq++)
            {
                for (int s = 0; s < SENDERS; s++)
                {
                    final int id = s * EACH + seq;
                    payload[id] = pattern(length(seq), id);
                    payload[id].putInt(0, id);
                    // Tag = the message's id: the receiver takes any tag and checks which arrived.
                    assertEquals(0, senders[s].tsend(payload[id], 0, length(seq), to[s], id, id));
                }
            }
            final boolean[] seen = new boolean[SENDERS * EACH];
            final UnsafeBuffer rx = direct(LARGE);
            for (int n = 0; n < SENDERS * EACH; n++)
            {
                assertEquals(0, receiver.trecv(rx, 0, LARGE, AddressVector.ADDR_UNSPEC, 0, -1L, n));
                final CompletionEntry got = one(rcq);
                assertEquals(n, got.context());
                final int id = (int) got.tag();
                assertTrue(id >= 0 && id < seen.length && !seen[id], "message " + id + " once");
                seen[id] = true;
                assertEquals(length(id % EACH), got.len());
                assertEquals(id, rx.getInt(0));
                for (int i = 4; i < got.len(); i++)
                {
                    assertEquals(payload[id].getByte(i), rx.getByte(i), "byte " + i + " of message " + id);
                }
            }
            for (int s = 0; s < SENDERS; s++)
            {
                final boolean[] sent = new boolean[EACH];
                for (int i = 0; i < EACH; i++)
                {
                    final long context = one(cqs[s]).context();
                    sent[(int) context - s * EACH] = true;
                }
                for (int i = 0; i < EACH; i++)
                {
                    assertTrue(sent[i], "send " + i + " of sender " + s + " completed");
                }
            }
            assertTrue(node.stats().cqOverruns() > 0, "the NIC RX CQ overran: " + node.stats().cqOverruns());
            for (int s = 0; s < SENDERS; s++)
            {
                senders[s].close();
                cqs[s].close();
                avs[s].close();
                domains[s].close();
            }
        }
    }
}
