package io.jfabric.aries;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random sequences of PUT/GET/AMO posts (FMA and BTE, any offsets, some misaligned) under a random every-k fault
 * plan, checked against a reference model of the target memory, the initiator's GET/fetch memory, the status of
 * every post and the completion events (each exactly once, successes in post order).
 */
class AriesModelPropertyTest
{
    private static final int SIZE = 16 * 1024;
    private static final TransactionKind[] KINDS = {
        TransactionKind.FMA_PUT, TransactionKind.RDMA_PUT, TransactionKind.FMA_GET, TransactionKind.RDMA_GET,
        TransactionKind.AMO};
    private static final int[] AMOS = {
        AmoCmd.IADD, AmoCmd.FIADD, AmoCmd.XOR, AmoCmd.AND | AmoCmd.FETCH, AmoCmd.OR, AmoCmd.SWAP, AmoCmd.FCSWAP,
        AmoCmd.FAX, AmoCmd.IADD | AmoCmd.SHORT, AmoCmd.FCSWAP | AmoCmd.SHORT};

    /** One post: kind index, local offset, remote offset, length, AMO index, operand. */
    record Op(int kind, int localOffset, int remoteOffset, int length, int amo, long operand)
    {
    }

    /** One fault rule: kind index, period k, fatal or transient. */
    record Rule(int kind, int k, boolean fatal)
    {
    }

    @Provide
    Arbitrary<List<Op>> ops()
    {
        final Arbitrary<Op> op = Combinators.combine(
            Arbitraries.integers().between(0, KINDS.length - 1),
            Arbitraries.integers().between(0, SIZE / 2),
            Arbitraries.integers().between(0, SIZE - 9000),
            Arbitraries.integers().between(0, 9000),
            Arbitraries.integers().between(0, AMOS.length - 1),
            Arbitraries.longs()).as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(40);
    }

    @Provide
    Arbitrary<List<Rule>> rules()
    {
        return Combinators.combine(
            Arbitraries.integers().between(0, KINDS.length - 1),
            Arbitraries.integers().between(2, 5),
            Arbitraries.of(true, false)).as(Rule::new).list().ofMaxSize(3);
    }

    @Property(tries = 40)
    void shouldMatchReferenceModel(@ForAll("ops") final List<Op> ops, @ForAll("rules") final List<Rule> rules)
    {
        final FaultPlan plan = FaultPlan.seeded(7);
        for (final Rule rule : rules)
        {
            plan.add(FaultPlan.on(KINDS[rule.kind()],
                rule.fatal() ? FaultPlan.Action.FATAL_ERROR : FaultPlan.Action.TRANSIENT_ERROR, 1).everyK(rule.k()));
        }
        try (AriesPair p = new AriesPair(plan, null, 256))
        {
            final UnsafeBuffer source = AriesFixture.memory(SIZE);
            final UnsafeBuffer sink = AriesFixture.memory(SIZE);
            final UnsafeBuffer remote = AriesFixture.memory(SIZE);
            final MemHandle sourceHandle = AriesFixture.register(p.nicA, source, 0);
            final MemHandle sinkHandle = AriesFixture.register(p.nicA, sink, 0);
            final MemHandle remoteHandle = AriesFixture.register(p.nicB, remote, 0);
            final byte[] modelRemote = new byte[SIZE];
            final byte[] modelSink = new byte[SIZE];
            for (int i = 0; i < SIZE; i++)
            {
                source.putByte(i, (byte) (i * 13 + 5));
                modelRemote[i] = (byte) (i * 3 + 1);
                remote.putByte(i, modelRemote[i]);
            }
            final long[] ruleCounts = new long[rules.size()];
            final Map<Long, Boolean> expectedOk = new HashMap<>();
            final List<Long> expectedSuccessOrder = new ArrayList<>();
            final UnsafeBuffer modelRemoteView = new UnsafeBuffer(modelRemote);
            final UnsafeBuffer modelSinkView = new UnsafeBuffer(modelSink);
            long postId = 0;
            for (final Op op : ops)
            {
                final TransactionKind kind = KINDS[op.kind()];
                final PostDescriptor d = new PostDescriptor();
                d.type = kind;
                d.postId = ++postId;
                final boolean get = TransactionKind.FMA_GET == kind || TransactionKind.RDMA_GET == kind;
                final int expectedRc;
                int amoSize = 0;
                if (TransactionKind.AMO == kind)
                {
                    d.amoCmd = AMOS[op.amo()];
                    amoSize = AmoCmd.size(d.amoCmd);
                    // Mostly aligned, sometimes not.
                    final int remoteOffset = 0 == op.length() % 7 ? op.remoteOffset() | 1 : op.remoteOffset() & ~7;
                    d.remoteAddr = remote.addressOffset() + remoteOffset;
                    d.localAddr = sink.addressOffset() + (op.localOffset() & ~7);
                    d.firstOperand = op.operand();
                    d.secondOperand = op.operand() >>> 3;
                    expectedRc = 0 != (remoteOffset & (amoSize - 1)) ? GniRc.ALIGNMENT_ERROR : GniRc.SUCCESS;
                }
                else
                {
                    final int length = TransactionKind.FMA_PUT == kind || TransactionKind.FMA_GET == kind ?
                        op.length() % 300 : op.length();
                    d.length = length;
                    d.remoteAddr = remote.addressOffset() + op.remoteOffset();
                    d.localAddr = (get ? sink : source).addressOffset() + op.localOffset();
                    expectedRc = get && (0 == length || 0 != (op.remoteOffset() & 3) || 0 != (length & 3)) ?
                        (0 == length ? GniRc.INVALID_PARAM : GniRc.ALIGNMENT_ERROR) : GniRc.SUCCESS;
                }
                d.localMemHandle.set(get || (TransactionKind.AMO == kind) ? sinkHandle : sourceHandle);
                d.remoteMemHandle.set(remoteHandle);
                final boolean rdma = TransactionKind.RDMA_PUT == kind || TransactionKind.RDMA_GET == kind;
                final int rc = rdma ? p.epA.postRdma(d) : p.epA.postFma(d);
                assertEquals(expectedRc, rc, "post " + d.postId + " " + op);
                if (GniRc.SUCCESS != rc)
                {
                    continue;
                }
                boolean faulted = false;
                for (int r = 0; r < rules.size(); r++)
                {
                    if (KINDS[rules.get(r).kind()] == kind && 0 == ++ruleCounts[r] % rules.get(r).k())
                    {
                        faulted = true;
                    }
                }
                expectedOk.put(d.postId, !faulted);
                if (faulted)
                {
                    continue;
                }
                expectedSuccessOrder.add(d.postId);
                final int remoteOffset = (int) (d.remoteAddr - remote.addressOffset());
                final int localOffset = (int) (d.localAddr - (get || TransactionKind.AMO == kind ?
                    sink : source).addressOffset());
                switch (kind)
                {
                    case FMA_PUT:
                    case RDMA_PUT:
                        source.getBytes(localOffset, modelRemote, remoteOffset, (int) d.length);
                        break;
                    case FMA_GET:
                    case RDMA_GET:
                        System.arraycopy(modelRemote, remoteOffset, modelSink, localOffset, (int) d.length);
                        break;
                    default:
                        final long old = 4 == amoSize ? modelRemoteView.getInt(remoteOffset) & 0xFFFF_FFFFL :
                            modelRemoteView.getLong(remoteOffset);
                        final long updated = referenceAmo(d.amoCmd & 0x3F, amoSize, old, d.firstOperand,
                            d.secondOperand);
                        if (4 == amoSize)
                        {
                            modelRemoteView.putInt(remoteOffset, (int) updated);
                            if (AmoCmd.fetching(d.amoCmd))
                            {
                                modelSinkView.putInt(localOffset, (int) old);
                            }
                        }
                        else
                        {
                            modelRemoteView.putLong(remoteOffset, updated);
                            if (AmoCmd.fetching(d.amoCmd))
                            {
                                modelSinkView.putLong(localOffset, old);
                            }
                        }
                        break;
                }
            }
            p.fixture.quiesce();
            final Map<Long, Boolean> seen = new HashMap<>();
            final List<Long> successOrder = new ArrayList<>();
            int rc;
            while (GniRc.NOT_DONE != (rc = p.cqA.getEvent()))
            {
                final long event = p.cqA.event();
                final long id = GniCqEntry.msgId(event);
                assertEquals(null, seen.put(id, GniRc.SUCCESS == rc), "event twice for post " + id);
                assertEquals(id, p.cqA.getCompleted(event).postId);
                if (GniRc.SUCCESS == rc)
                {
                    successOrder.add(id);
                }
            }
            assertEquals(expectedOk, seen, plan.trace().toString());
            assertEquals(expectedSuccessOrder, successOrder);
            final byte[] actualRemote = new byte[SIZE];
            remote.getBytes(0, actualRemote);
            assertArrayEquals(modelRemote, actualRemote, "remote memory; trace " + plan.trace());
            final byte[] actualSink = new byte[SIZE];
            sink.getBytes(0, actualSink);
            assertArrayEquals(modelSink, actualSink, "local memory; trace " + plan.trace());
            assertEquals(0, p.epA.outstanding());
            assertEquals(Arrays.stream(KINDS).mapToLong(k -> p.nodeA.stats().posts(k)).sum(), expectedOk.size());
        }
    }

    /**
     * The AMO semantics written out independently of {@link AmoCmd#apply} (integer commands only).
     */
    private static long referenceAmo(
        final int base, final int size, final long old, final long op1, final long op2)
    {
        switch (base)
        {
            case AmoCmd.IADD:
                return old + op1;
            case AmoCmd.XOR:
                return old ^ op1;
            case AmoCmd.AND:
                return old & op1;
            case AmoCmd.OR:
                return old | op1;
            case AmoCmd.SWAP:
                return op1;
            case AmoCmd.CSWAP:
                return (4 == size ? (int) old == (int) op1 : old == op1) ? op2 : old;
            case AmoCmd.AX:
                return (old & op1) ^ op2;
            default:
                throw new IllegalArgumentException("amo " + base);
        }
    }
}
