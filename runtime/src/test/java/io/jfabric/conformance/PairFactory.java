package io.jfabric.conformance;

import io.jfabric.CqFormat;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Info;

import java.util.List;

/**
 * How the conformance suite reaches one provider: the infos it opens, and the pair of domains and endpoints every
 * test of the suite runs over. A provider joins the suite with one small class per suite class that hands its
 * factory to the suite's constructor (see {@code RUNTIME.md}, "Conformance suite").
 * <p>
 * Threading: called from the test thread only.
 */
public interface PairFactory
{
    /**
     * The provider name ({@code fabric_attr.prov_name}) the suite asks getInfo for.
     *
     * @return the name.
     */
    String provider();

    /**
     * The provider's first info for {@code hints} (whose {@code fabric_attr.prov_name} the suite leaves unset).
     * Override to add what the provider needs (a node name, a source address).
     *
     * @param hints the caps and attributes a test asks for.
     * @return the info to open the pair with.
     */
    default Info info(final Info hints)
    {
        final FabricAttr fabricAttr = hints.fabricAttr();
        final FabricAttr named = (null == fabricAttr ? FabricAttr.builder() : fabricAttr.toBuilder())
            .provName(provider()).build();
        final List<Info> infos = Fabric.getInfo(hints.toBuilder().fabricAttr(named).build());
        return infos.get(0);
    }

    /**
     * Open a fabric, two domains with one RDM endpoint each, their CQs, counters and table AVs (see {@link Pair}).
     *
     * @param infoA     info of domain and endpoint a (it also opens the fabric).
     * @param infoB     info of domain and endpoint b.
     * @param txCqFlags extra CQ bind flags of both endpoints ({@code FI_SELECTIVE_COMPLETION}).
     * @param format    the CQ format.
     * @param cqSize    the CQ size.
     * @return the open pair; the caller closes it.
     */
    default Pair open(final Info infoA, final Info infoB, final long txCqFlags, final CqFormat format, final int cqSize)
    {
        return new Pair(infoA, infoB, txCqFlags, format, cqSize);
    }

    /**
     * Whether a frame is in the peer's inbound queue once the sender's completion for it arrives (or one duty cycle
     * of the sender has run): true for memory transports (inproc, shm). A network transport (aeron) completes a send
     * when its driver took the frame, which is still on its way; the few tests that rely on the frame being there
     * at once (a tsearch right after the send completions, a target checked after a fixed number of its own
     * progress calls) are skipped for it, by a named assumption, instead of failing on timing.
     *
     * @return true by default.
     */
    default boolean deliversWithTheSendCompletion()
    {
        return true;
    }

    /**
     * Whether a datagram ({@code FI_EP_DGRAM}) may be lost on the way: false for memory transports (their rings are
     * reliable); true for a network transport that carries datagrams unreliably (aeron's {@code reliable=false}
     * stream). {@link DgramConformance} then holds the provider to what arrived (in order, no duplicate, never a
     * hang) instead of to every datagram, and waits for a quiet period where it would wait for the last one.
     *
     * @return false by default.
     */
    default boolean losesDatagrams()
    {
        return false;
    }

    /**
     * Called once before the tests of a suite class run over this provider (for example to give shm a private ring
     * directory).
     *
     * @throws Exception when the provider cannot be prepared.
     */
    default void beforeAll() throws Exception
    {
    }

    /**
     * Called once after the tests of a suite class ran over this provider.
     *
     * @throws Exception when cleaning up fails.
     */
    default void afterAll() throws Exception
    {
    }
}
