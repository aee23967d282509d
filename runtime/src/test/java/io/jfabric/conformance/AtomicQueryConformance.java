package io.jfabric.conformance;

import io.jfabric.AtomicAttr;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.CompletionEntry;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.MemoryRegion;
import io.jfabric.Message;
import io.jfabric.Progress;
import io.jfabric.spi.AtomicCapabilities.Kind;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code fi_query_atomic} (fabtests {@code rdm_atomic} asks it for every op and datatype before it runs one) checked
 * against what the data path accepts, for every family × op × datatype: the domain's answer, the endpoint's
 * {@code *valid} calls and the {@code fi_atomic_attr} agree; a supported triple posted with exactly {@code count}
 * elements completes without error and with {@code count + 1} is {@code -EMSGSIZE}; an unsupported triple answers
 * {@code -EOPNOTSUPP} at query and at post alike.
 * <p>
 * A suite class: a provider runs it by extending it with its {@link PairFactory} (see {@link Conformance}).
 */
@Timeout(300)
public abstract class AtomicQueryConformance extends Conformance
{
    private static final int KEY = 61;

    /**
     * @param factory the provider under test.
     */
    protected AtomicQueryConformance(final PairFactory factory)
    {
        super(factory);
    }

    @Test
    void shouldAnswerQueryAtomicAsTheDataPathBehavesForEveryTriple()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final int most = 4096;
            final UnsafeBuffer target = direct(most);
            final UnsafeBuffer operand = direct(most);
            final UnsafeBuffer compare = direct(most);
            final UnsafeBuffer result = direct(most);
            final AtomicAttr attr = new AtomicAttr();
            int supported = 0;
            long context = 1;
            try (MemoryRegion mr = p.domainB.registerMemory(target, 0, most,
                Flags.REMOTE_READ | Flags.REMOTE_WRITE, KEY))
            {
                for (final Kind kind : Kind.values())
                {
                    final long flags = Kind.ATOMIC == kind ? 0 : Kind.FETCH == kind ? Flags.FETCH_ATOMIC :
                        Flags.COMPARE_ATOMIC;
                    for (final AtomicOp op : AtomicOp.values())
                    {
                        for (final AtomicDatatype type : AtomicDatatype.values())
                        {
                            final String what = kind + " " + op + " " + type;
                            final long count = p.domainA.queryAtomic(type, op, flags);
                            assertEquals(count, valid(p, kind, type, op), what + ": endpoint *valid");
                            final int status = p.domainA.queryAtomic(type, op, attr, flags);
                            if (count < 0)
                            {
                                assertEquals(Errno.EOPNOTSUPP.negated(), count, what);
                                assertEquals(Errno.EOPNOTSUPP.negated(), status, what);
                                assertEquals(Errno.EOPNOTSUPP.negated(),
                                    post(p, kind, type, op, 1, operand, compare, result, context), what + " posted");
                                continue;
                            }
                            supported++;
                            assertEquals(0, status, what);
                            assertEquals(count, attr.count(), what);
                            assertEquals(type.size(), attr.size(), what);
                            assertTrue(count >= 1 && count * type.size() <= most, what + ": count " + count);
                            assertEquals(Errno.EMSGSIZE.negated(),
                                post(p, kind, type, op, (int) count + 1, operand, compare, result, context),
                                what + " above count");
                            assertEquals(0, post(p, kind, type, op, (int) count, operand, compare, result, context),
                                what + " at count");
                            final CompletionEntry done = one(p.cqA);
                            assertEquals(context, done.context(), what);
                            assertEquals(Flags.ATOMIC | (Kind.ATOMIC == kind ? Flags.WRITE : Flags.READ),
                                done.flags(), what);
                            context++;
                        }
                    }
                }
            }
            assertTrue(supported > 0, "the provider supports some atomic");
            assertEquals(Errno.EINVAL.negated(),
                p.domainA.queryAtomic(AtomicDatatype.INT64, AtomicOp.SUM, null, 0));
            assertEquals(Errno.EBADFLAGS.negated(),
                p.domainA.queryAtomic(AtomicDatatype.INT64, AtomicOp.SUM, attr, Flags.TAGGED));
        }
    }

    private static long valid(final Pair p, final Kind kind, final AtomicDatatype type, final AtomicOp op)
    {
        switch (kind)
        {
            case ATOMIC:
                return p.a.atomicValid(type, op);
            case FETCH:
                return p.a.fetchAtomicValid(type, op);
            default:
                return p.a.compareAtomicValid(type, op);
        }
    }

    private static int post(
        final Pair p,
        final Kind kind,
        final AtomicDatatype type,
        final AtomicOp op,
        final int count,
        final UnsafeBuffer operand,
        final UnsafeBuffer compare,
        final UnsafeBuffer result,
        final long context)
    {
        final Message msg = new Message().buffer(operand, 0, count * type.size()).addr(p.addrBFromA).rma(0, KEY)
            .context(context);
        switch (kind)
        {
            case ATOMIC:
                return p.a.atomicmsg(msg, type, op, Flags.COMPLETION);
            case FETCH:
                return p.a.fetchAtomicmsg(msg, result, 0, type, op, Flags.COMPLETION);
            default:
                return p.a.compareAtomicmsg(msg, compare, 0, result, 0, type, op, Flags.COMPLETION);
        }
    }
}
