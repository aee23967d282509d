package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import io.jfabric.aries.FaultPlan;
import io.jfabric.aries.TransactionKind;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Provider retransmission (GNI.md §2.3, §3: "retransmission visible only as error after N injected failures"): the
 * emulator's fault plan fails the rendezvous GET of a 100 000-byte tagged message with a recoverable transaction
 * error. An RDM endpoint posts it again up to {@code GNI_MAX_RETRANSMITS} (5) times: one failure and the message
 * arrives whole; every attempt failing ends, after exactly 1 + 5 attempts, in the transport-failure completion
 * ({@code err = FI_ECANCELED}). A DGRAM endpoint never retransmits: one failure fails the send.
 */
@Timeout(60)
class GniRetransmitTest
{
    private static final int SIZE = 100_000;

    @AfterEach
    void clear()
    {
        GniFaults.clear();
    }

    private static Info info(final EndpointType type)
    {
        return Fabric.getInfo(Info.builder().caps(Flags.MSG | Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(GniProvider.NAME).build())
            .epAttr(EpAttr.builder().type(type).build())
            .domainAttr(DomainAttr.builder().mrMode(MrMode.MMU_NOTIFY).dataProgress(Progress.AUTO).build())
            .build()).get(0);
    }

    /** Sends one rendezvous message A to B under {@code plan}; the sender's completion or error, and the data. */
    private static void run(final EndpointType type, final FaultPlan plan, final int expectedAttempts,
        final boolean expectSuccess)
    {
        GniFaults.install(plan);
        final Info info = info(type);
        try (Fabric fabric = Fabric.open(info);
            Domain domainA = fabric.domain(info, "yield");
            Domain domainB = fabric.domain(info, "yield");
            AddressVector avA = domainA.addressVector(AvType.TABLE, 2);
            AddressVector avB = domainB.addressVector(AvType.TABLE, 2);
            CompletionQueue cqA = domainA.completionQueue(16, CqFormat.TAGGED);
            CompletionQueue cqB = domainB.completionQueue(16, CqFormat.TAGGED);
            Endpoint a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
            Endpoint b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final long toB = avA.insert(b.name());
            avB.insert(a.name());
            final UnsafeBuffer rx = direct(SIZE);
            assertEquals(0, b.trecv(rx, 0, SIZE, AddressVector.ADDR_UNSPEC, 7, 0, 1));
            assertEquals(0, a.tsend(pattern(SIZE, 3), 0, SIZE, toB, 7, 2));
            if (expectSuccess)
            {
                assertEquals(2, one(cqA).context());
                assertEquals(1, one(cqB).context());
                assertPattern(rx, 0, SIZE, 3);
            }
            else
            {
                final CompletionErrorEntry failed = error(cqA);
                assertEquals(2, failed.context());
                assertEquals(Errno.ECANCELED.value(), failed.err());
            }
            assertEquals(expectedAttempts, plan.trace().size(), "failed attempts: " + plan.trace());
        }
    }

    @Test
    void shouldRetransmitARendezvousGetThatFailedOnceOnRdm()
    {
        run(EndpointType.RDM, FaultPlan.seeded(1).add(
            FaultPlan.on(TransactionKind.RDMA_GET, FaultPlan.Action.TRANSIENT_ERROR, 0).nth(1)), 1, true);
    }

    @Test
    void shouldFailWithEcanceledAfterOnePlusMaxRetransmitsOnRdm()
    {
        run(EndpointType.RDM, FaultPlan.seeded(2).add(
            FaultPlan.on(TransactionKind.RDMA_GET, FaultPlan.Action.TRANSIENT_ERROR, 0)),
            1 + GniBackend.MAX_RETRANSMITS_DEFAULT, false);
    }

    @Test
    void shouldNeverRetransmitForDgram()
    {
        run(EndpointType.DGRAM, FaultPlan.seeded(3).add(
            FaultPlan.on(TransactionKind.RDMA_GET, FaultPlan.Action.TRANSIENT_ERROR, 0).nth(1)), 1, false);
    }

    @Test
    void shouldNotRetransmitANonRecoverableFailure()
    {
        run(EndpointType.RDM, FaultPlan.seeded(4).add(
            FaultPlan.on(TransactionKind.RDMA_GET, FaultPlan.Action.FATAL_ERROR, 0).nth(1)), 1, false);
    }
}
