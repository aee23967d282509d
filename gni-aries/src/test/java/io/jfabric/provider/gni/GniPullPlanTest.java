package io.jfabric.provider.gni;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link GniPullPlan} run against a model of the two memories (byte arrays, addresses are indexes): every GET has a
 * 4-aligned remote address and length and lands inside its segment, every bounced word is aligned, the START carries
 * only the one-piece message's head and tail words, and the destination gets each of the first {@code length} bytes
 * of the message exactly once with every guard byte around the segments untouched. Pieces and segments at every
 * alignment 0..7, sizes around 16 KiB, 1 MiB + 3, and tiny pieces of 1 to 5 bytes; receives that truncate.
 */
class GniPullPlanTest
{
    private static final int BASE = 4096;
    private static final int GUARD = 8;
    private static final byte SENTINEL = (byte) 0xA5;

    @Test
    void shouldPullEveryByteOnceWithAlignedGetsAtEveryAlignmentOfEachPiece()
    {
        final int[] sizes = {16_343, 16_344, 16_345, 16_383, 16_384, 16_385, 20_003};
        int cases = 0;
        for (final int size : sizes)
        {
            for (int s = 0; s < 8; s++)
            {
                for (int r = 0; r < 8; r++)
                {
                    // Three pieces and three segments, piece i at alignment (s + i) % 8, segment i at (r + 3i) % 8.
                    final long[] pieces = {size / 3 + 1, size / 5, size - size / 3 - 1 - size / 5};
                    final long[] segments = {size / 4, size / 2 + 3, size - size / 4 - size / 2 - 3};
                    run(pieces, new int[] {s, (s + 1) % 8, (s + 2) % 8}, segments,
                        new int[] {r, (r + 3) % 8, (r + 6) % 8}, size);
                    // One piece into three segments, three pieces into one segment.
                    run(new long[] {size}, new int[] {s}, segments, new int[] {r, (r + 3) % 8, (r + 6) % 8}, size);
                    run(pieces, new int[] {s, (s + 1) % 8, (s + 2) % 8}, new long[] {size}, new int[] {r}, size);
                    cases += 3;
                }
            }
        }
        final int big = (1 << 20) + 3;
        for (int s = 0; s < 8; s++)
        {
            run(new long[] {big - 5, 5}, new int[] {s, 7 - s}, new long[] {3, big - 3}, new int[] {(s + 5) % 8, s},
                big);
            cases++;
        }
        assertEquals(7 * 64 * 3 + 8, cases);
    }

    @Test
    void shouldTruncateAnywhereIncludingInsideTheTailWordAndTheHeadWord()
    {
        final int size = 20_003;
        for (int s = 0; s < 8; s++)
        {
            for (int r = 0; r < 8; r++)
            {
                for (final int room : new int[] {1, 2, 3, 5, 30, 10_001, 20_000, 20_001, 20_002})
                {
                    run(new long[] {size}, new int[] {s}, new long[] {room}, new int[] {r}, size);
                    final long first = room / 2;
                    run(new long[] {7, size - 7}, new int[] {s, r}, new long[] {first, room - first},
                        new int[] {r, s}, size);
                }
            }
        }
    }

    @Test
    void shouldServeTinyPiecesAndSegmentsAndRandomSplits()
    {
        final SplittableRandom random = new SplittableRandom(15);
        for (int c = 0; c < 3000; c++)
        {
            final int pieceCount = 1 + random.nextInt(GniPullPlan.MAX_PIECES);
            final int segmentCount = 1 + random.nextInt(GniPullPlan.MAX_PIECES);
            final boolean tiny = random.nextBoolean();
            final long[] pieces = new long[pieceCount];
            final int[] pieceAlign = new int[pieceCount];
            long size = 0;
            for (int j = 0; j < pieceCount; j++)
            {
                pieces[j] = tiny ? random.nextInt(6) : random.nextInt(3000);
                pieceAlign[j] = random.nextInt(8);
                size += pieces[j];
            }
            if (0 == size)
            {
                continue;
            }
            final long room = random.nextBoolean() ? size : 1 + random.nextLong(size);
            final long[] segments = new long[segmentCount];
            final int[] segmentAlign = new int[segmentCount];
            long left = room;
            for (int k = 0; k < segmentCount; k++)
            {
                segments[k] = k == segmentCount - 1 ? left : random.nextLong(left + 1);
                left -= segments[k];
                segmentAlign[k] = random.nextInt(8);
            }
            run(pieces, pieceAlign, segments, segmentAlign, size);
        }
    }

    @Test
    void shouldCountGetsAndBouncedWordsAsUpstreamSplitsThem()
    {
        final GniPullPlan plan = new GniPullPlan();
        // Aligned, one piece, one buffer of the message's size: one GET, nothing bounced.
        plan.reset(40_000);
        assertTrue(plan.piece(BASE, 40_000));
        assertTrue(plan.segment(BASE, 40_000));
        assertTrue(plan.plan());
        assertEquals(1, plan.gets());
        assertEquals(0, plan.words());
        // Truncated at an unaligned point: the word holding it is fetched (upstream's GET_TAIL).
        plan.reset(40_003);
        assertTrue(plan.piece(BASE, 40_003));
        assertTrue(plan.segment(BASE, 30_001));
        assertTrue(plan.plan());
        assertEquals(1, plan.gets());
        assertEquals(1, plan.words());
        // An iov receive of 10 000, 7 001 and the rest: the word straddling the 2nd and 3rd segments once.
        plan.reset(40_003);
        assertTrue(plan.piece(BASE, 40_003));
        assertTrue(plan.segment(BASE, 10_000));
        assertTrue(plan.segment(2 * BASE, 7_001));
        assertTrue(plan.segment(3 * BASE, 23_002));
        assertTrue(plan.plan());
        assertEquals(3, plan.gets());
        assertEquals(1, plan.words());
        assertEquals(2, plan.copies());
        // Three aligned pieces of 8 KiB into one buffer: one GET each.
        plan.reset(3 * 8192);
        for (int j = 0; j < 3; j++)
        {
            assertTrue(plan.piece((j + 1) * 16384L, 8192));
        }
        assertTrue(plan.segment(BASE, 3 * 8192));
        assertTrue(plan.plan());
        assertEquals(3, plan.gets());
        assertEquals(0, plan.words());
        // Segments taking more than the message, pieces that do not add up: refused.
        plan.reset(100);
        assertTrue(plan.piece(BASE, 100));
        assertTrue(plan.segment(BASE, 101));
        assertFalse(plan.plan());
        plan.reset(100);
        assertTrue(plan.piece(BASE, 99));
        assertTrue(plan.segment(BASE, 99));
        assertFalse(plan.plan());
    }

    /**
     * Plan a pull and carry it out on the model; check every rule.
     */
    private static void run(
        final long[] pieces, final int[] pieceAlign, final long[] segments, final int[] segmentAlign, final long size)
    {
        long total = 0;
        for (final long n : pieces)
        {
            total += n;
        }
        assertEquals(size, total);
        final long[] pieceAddress = new long[pieces.length];
        int remoteSize = BASE;
        for (int j = 0; j < pieces.length; j++)
        {
            remoteSize = (remoteSize + 4095) & ~4095;
            pieceAddress[j] = remoteSize + pieceAlign[j];
            remoteSize += (int) pieces[j] + pieceAlign[j] + GUARD;
        }
        final byte[] remote = new byte[remoteSize + 4096];
        final byte[] message = new byte[(int) size];
        int at = 0;
        for (int j = 0; j < pieces.length; j++)
        {
            for (int i = 0; i < pieces[j]; i++)
            {
                final byte b = (byte) ((at * 0x9E3779B1L + 7) >>> 11);
                message[at++] = b;
                remote[(int) pieceAddress[j] + i] = b;
            }
        }
        final long[] segmentAddress = new long[segments.length];
        int localSize = BASE;
        for (int k = 0; k < segments.length; k++)
        {
            localSize = (localSize + 4095) & ~4095;
            segmentAddress[k] = localSize + GUARD + segmentAlign[k];
            localSize += (int) segments[k] + 2 * GUARD + segmentAlign[k];
        }
        final byte[] local = new byte[localSize + 4096];
        Arrays.fill(local, SENTINEL);
        final int[] writes = new int[local.length];

        final GniPullPlan plan = new GniPullPlan();
        plan.reset(size);
        // The plan numbers the non-empty pieces only.
        final int[] nonEmpty = new int[pieces.length];
        int count = 0;
        for (int j = 0; j < pieces.length; j++)
        {
            assertTrue(plan.piece(pieceAddress[j], pieces[j]));
            if (pieces[j] > 0)
            {
                nonEmpty[count++] = j;
            }
        }
        long room = 0;
        for (int k = 0; k < segments.length; k++)
        {
            assertTrue(plan.segment(segmentAddress[k], segments[k]));
            room += segments[k];
        }
        assertTrue(plan.plan());
        assertEquals(room, plan.length());
        assertTrue(plan.gets() <= GniPullPlan.MAX_GETS);
        assertTrue(plan.words() <= GniPullPlan.MAX_WORDS);

        for (int g = 0; g < plan.gets(); g++)
        {
            final long r = plan.getRemote(g);
            final long n = plan.getLength(g);
            final long l = plan.getLocal(g);
            assertEquals(0, r & 3, "GET remote address aligned");
            assertEquals(0, n & 3, "GET length aligned");
            assertTrue(n > 0);
            final int piece = nonEmpty[plan.getPiece(g)];
            assertTrue(r >= pieceAddress[piece] && r + n <= pieceAddress[piece] + pieces[piece], "inside its piece");
            final int segment = plan.getSegment(g);
            assertTrue(plan.segmentPulled(segment));
            assertTrue(l >= plan.segmentAddress(segment) &&
                l + n <= plan.segmentAddress(segment) + plan.segmentLength(segment), "inside its segment");
            for (int i = 0; i < n; i++)
            {
                local[(int) l + i] = remote[(int) r + i];
                writes[(int) l + i]++;
            }
        }
        final byte[] words = new byte[4 * plan.words()];
        for (int w = 0; w < plan.words(); w++)
        {
            final long r = plan.wordRemote(w);
            assertEquals(0, r & 3, "bounced word aligned");
            final int piece = nonEmpty[plan.wordPiece(w)];
            assertTrue(r + 4 > pieceAddress[piece] && r < pieceAddress[piece] + pieces[piece], "holds a piece byte");
            System.arraycopy(remote, (int) r, words, 4 * w, 4);
        }
        for (int c = 0; c < plan.copies(); c++)
        {
            assertTrue(plan.copyFrom(c) + plan.copyLength(c) <= 4);
            for (int i = 0; i < plan.copyLength(c); i++)
            {
                local[(int) plan.copyTo(c) + i] = words[4 * plan.copyWord(c) + plan.copyFrom(c) + i];
                writes[(int) plan.copyTo(c) + i]++;
            }
        }
        if (1 == plan.pieces())
        {
            assertTrue(plan.headEnd() <= 3 && size - plan.tailStart() <= 3);
        }
        else
        {
            assertEquals(0, plan.headEnd());
            assertEquals(size, plan.tailStart());
        }
        for (long i = 0; i < Math.min(plan.headEnd(), room); i++)
        {
            local[(int) plan.localOf(i)] = message[(int) i];
            writes[(int) plan.localOf(i)]++;
        }
        for (long i = plan.tailStart(); i < room; i++)
        {
            local[(int) plan.localOf(i)] = message[(int) i];
            writes[(int) plan.localOf(i)]++;
        }

        final boolean[] destination = new boolean[local.length];
        long m = 0;
        for (int k = 0; k < segments.length; k++)
        {
            for (int i = 0; i < segments[k]; i++)
            {
                final int a = (int) segmentAddress[k] + i;
                destination[a] = true;
                if (message[(int) m] != local[a] || 1 != writes[a])
                {
                    fail("message byte " + m + " (segment " + k + " byte " + i + "): " + local[a] + " written " +
                        writes[a] + " times, want " + message[(int) m] + "; pieces " + Arrays.toString(pieces) +
                        " at " + Arrays.toString(pieceAlign) + ", segments " + Arrays.toString(segments) + " at " +
                        Arrays.toString(segmentAlign));
                }
                m++;
            }
        }
        for (int a = 0; a < local.length; a++)
        {
            if (!destination[a] && (SENTINEL != local[a] || 0 != writes[a]))
            {
                fail("guard byte " + a + " written; pieces " + Arrays.toString(pieces) + ", segments " +
                    Arrays.toString(segments));
            }
        }
    }
}
