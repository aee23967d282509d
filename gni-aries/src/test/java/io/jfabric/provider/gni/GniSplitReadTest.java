package io.jfabric.provider.gni;

import io.jfabric.CqFormat;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MemoryRegion;
import io.jfabric.OpenOps;
import io.jfabric.Progress;
import io.jfabric.conformance.Pair;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A read into several local buffers from an unaligned remote range ({@link GniSplitRead}, GNI.md 2.5): below 60
 * bytes one GET of the covering words through the bounce buffer; from 60 bytes the aligned middle of each buffer's
 * piece straight in (FMA, or BTE from the RDMA threshold) and each word holding an unaligned end or boundary once
 * through the bounce buffer. Every byte checked, the bytes around each buffer untouched, and the NIC's FMA and BTE
 * post counts of the initiator as planned.
 */
class GniSplitReadTest
{
    private static final int REGION = 65536;

    private static Pair pair(final Progress progress)
    {
        final Info info = GniConformance.FACTORY.info(Info.builder().caps(Flags.MSG | Flags.RMA)
            .domainAttr(io.jfabric.DomainAttr.builder().dataProgress(progress).build()).build());
        return GniConformance.FACTORY.open(info, info, 0, CqFormat.TAGGED, 64);
    }

    /**
     * readv of {@code pieces} (lengths) from remote {@code offset} into slices of one buffer, each slice one byte
     * after the previous one's end (a guard byte between them); returns nothing, asserts every byte.
     */
    private static void readv(
        final Pair p, final UnsafeBuffer source, final long key, final int offset, final int[] pieces, final int ctx)
    {
        int total = 0;
        for (final int n : pieces)
        {
            total += n;
        }
        final UnsafeBuffer local = direct(total + pieces.length + 1);
        final DirectBuffer[] iov = new DirectBuffer[pieces.length];
        int at = 1;
        for (int i = 0; i < pieces.length; i++)
        {
            iov[i] = new UnsafeBuffer(local, at, pieces[i]);
            at += pieces[i] + 1;
        }
        assertEquals(0, p.a.readv(iov, pieces.length, p.addrBFromA, offset, key, ctx));
        assertEquals(ctx, one(p.cqA).context());
        at = 1;
        int remote = offset;
        for (int i = 0; i < pieces.length; i++)
        {
            assertEquals(0, local.getByte(at - 1), "guard byte before piece " + i);
            for (int j = 0; j < pieces[i]; j++)
            {
                assertEquals(source.getByte(remote + j), local.getByte(at + j), "piece " + i + " byte " + j);
            }
            at += pieces[i] + 1;
            remote += pieces[i];
        }
        assertEquals(0, local.getByte(at - 1), "guard byte after the last piece");
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void shouldReadUnalignedPiecesIntoSeveralBuffersAtEveryOffset(final Progress progress)
    {
        try (Pair p = pair(progress))
        {
            final UnsafeBuffer source = pattern(REGION, 21);
            try (MemoryRegion mr = p.domainB.registerMemory(source, 0, REGION, Flags.REMOTE_READ, 70))
            {
                final int[][] splits = {
                    {1, 2, 4}, {3, 5}, {10, 30, 19}, {1, 1, 1, 1, 1, 1, 1, 52},
                    {10, 30, 60}, {2, 2, 2, 100}, {7, 1, 9000, 3}, {5, 19995}, {4096, 4, 4096, 1, 2, 3, 4, 5}};
                int ctx = 1;
                for (int offset = 0; offset < 4; offset++)
                {
                    for (final int[] split : splits)
                    {
                        readv(p, source, mr.key(), 1000 + offset, split, ctx++);
                    }
                }
            }
        }
    }

    @Test
    void shouldPostOneBounceGetBelow60BytesAndAMiddlePerPiecePlusBoundaryWordsAbove()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final OpenOps ops = p.domainA.openOps(GniOps.FI_GNI_DOMAIN_OPS_1);
            final UnsafeBuffer source = pattern(REGION, 22);
            try (MemoryRegion mr = p.domainB.registerMemory(source, 0, REGION, Flags.REMOTE_READ, 71))
            {
                // 59 bytes at 1 in three pieces: the covering words [0, 60) in one FMA GET.
                long fma = ops.get(GniOps.GNI_STAT_FMA_POSTS);
                long bte = ops.get(GniOps.GNI_STAT_BTE_POSTS);
                readv(p, source, mr.key(), 1, new int[]{10, 30, 19}, 1);
                assertEquals(fma + 1, ops.get(GniOps.GNI_STAT_FMA_POSTS));
                assertEquals(bte, ops.get(GniOps.GNI_STAT_BTE_POSTS));

                // 100 bytes at 1 in 10 + 30 + 60: words 0, 8, 40, 100 and middles [4,8), [12,40), [44,100).
                fma = ops.get(GniOps.GNI_STAT_FMA_POSTS);
                readv(p, source, mr.key(), 1, new int[]{10, 30, 60}, 2);
                assertEquals(fma + 7, ops.get(GniOps.GNI_STAT_FMA_POSTS));
                assertEquals(bte, ops.get(GniOps.GNI_STAT_BTE_POSTS));

                // 20000 bytes at 3 in 5 + 19995: words 0 and 20000, middle [4,8) by FMA, [8,20000) by BTE.
                fma = ops.get(GniOps.GNI_STAT_FMA_POSTS);
                readv(p, source, mr.key(), 3, new int[]{5, 19995}, 3);
                assertEquals(fma + 3, ops.get(GniOps.GNI_STAT_FMA_POSTS));
                assertEquals(bte + 1, ops.get(GniOps.GNI_STAT_BTE_POSTS));
            }
        }
    }
}
