package io.jfabric;

import io.jfabric.conformance.Pair;

/**
 * Test fixture of this module's inproc tests outside the conformance suite: a {@link Pair} over {@code inproc}
 * (its static helpers are reached through this class too).
 */
final class InprocPair extends Pair
{
    InprocPair(final Progress progress)
    {
        this(progress, 0, CqFormat.TAGGED, 1024);
    }

    InprocPair(final Progress progress, final long txCqFlags, final CqFormat format, final int cqSize)
    {
        this(info(progress, 0, 0), txCqFlags, format, cqSize);
    }

    InprocPair(final Info info, final long txCqFlags, final CqFormat format, final int cqSize)
    {
        super(info, info, txCqFlags, format, cqSize);
    }

    static Info info(final Progress progress, final long txOpFlags, final long rxOpFlags)
    {
        return InprocConformance.FACTORY.info(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA)
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .txAttr(TxAttr.builder().opFlags(txOpFlags).build())
            .rxAttr(RxAttr.builder().opFlags(rxOpFlags).build())
            .build());
    }
}
