package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.CqFormat;
import io.jfabric.DomainAttr;
import io.jfabric.Errno;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.RxAttr;
import io.jfabric.TxAttr;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Base of every conformance suite class: holds the provider's {@link PairFactory} and opens pairs and infos through
 * it. One instance per class ({@link TestInstance.Lifecycle#PER_CLASS}), so that the factory's
 * {@link PairFactory#beforeAll()} and {@link PairFactory#afterAll()} bracket the class's tests.
 * <p>
 * Threading: test thread only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class Conformance
{
    /** The provider under test. */
    protected final PairFactory factory;

    /**
     * @param factory the provider under test.
     */
    protected Conformance(final PairFactory factory)
    {
        this.factory = factory;
    }

    @BeforeAll
    final void prepareProvider() throws Exception
    {
        factory.beforeAll();
    }

    @AfterAll
    final void releaseProvider() throws Exception
    {
        factory.afterAll();
    }

    /**
     * @return the name of the provider under test.
     */
    protected final String provider()
    {
        return factory.provider();
    }

    /**
     * The provider's info for MSG, TAGGED and RMA with the given progress and default op flags.
     *
     * @param progress  the data progress.
     * @param txOpFlags {@code tx_attr.op_flags}.
     * @param rxOpFlags {@code rx_attr.op_flags}.
     * @return the info.
     */
    protected final Info info(final Progress progress, final long txOpFlags, final long rxOpFlags)
    {
        return factory.info(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA)
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .txAttr(TxAttr.builder().opFlags(txOpFlags).build())
            .rxAttr(RxAttr.builder().opFlags(rxOpFlags).build())
            .build());
    }

    /**
     * The provider's info for {@code hints} ({@code fabric_attr.prov_name} is filled in).
     *
     * @param hints the hints.
     * @return the info.
     */
    protected final Info info(final Info hints)
    {
        return factory.info(hints);
    }

    protected final Pair pair(final Progress progress)
    {
        return pair(progress, 0, CqFormat.TAGGED, 1024);
    }

    protected final Pair pair(final Progress progress, final long txCqFlags, final CqFormat format, final int cqSize)
    {
        return pair(info(progress, 0, 0), txCqFlags, format, cqSize);
    }

    protected final Pair pair(final Info info, final long txCqFlags, final CqFormat format, final int cqSize)
    {
        return pair(info, info, txCqFlags, format, cqSize);
    }

    protected final Pair pair(
        final Info infoA, final Info infoB, final long txCqFlags, final CqFormat format, final int cqSize)
    {
        return factory.open(infoA, infoB, txCqFlags, format, cqSize);
    }

    /**
     * Whether endpoint b of {@code p} takes receive iovs of {@code count} buffers ({@code rx_attr.iov_limit}). When it
     * does not, this asserts that such a receive is refused with {@code -EINVAL} (the provider honours the limit it
     * advertises) and the calling test ends there: scatter into receive iovs is a capability, not a requirement.
     *
     * @param p     the pair.
     * @param count buffers in the receive iov a test needs.
     * @return true when the test can go on.
     */
    protected static boolean receiveIovOf(final Pair p, final int count)
    {
        if (count <= p.infoB.rxAttr().iovLimit())
        {
            return true;
        }
        final DirectBuffer[] iov = new DirectBuffer[count];
        for (int i = 0; i < count; i++)
        {
            iov[i] = Pair.direct(8);
        }
        assertEquals(Errno.EINVAL.negated(), p.b.recvv(iov, count, AddressVector.ADDR_UNSPEC, 0),
            "a receive iov above rx_attr.iov_limit " + p.infoB.rxAttr().iovLimit());
        return false;
    }
}
