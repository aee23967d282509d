package io.jfabric.matching;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jfabric.matching.MatchFlags.ADDR_UNSPEC;
import static io.jfabric.matching.MatchFlags.CLAIM;
import static io.jfabric.matching.MatchFlags.DISCARD;
import static io.jfabric.matching.MatchFlags.MULTI_RECV;
import static io.jfabric.matching.MatchFlags.PEEK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MatchingEngineTest
{
    private static final long SRC_A = 7;
    private static final long SRC_B = 9;
    private final MatchResult result = new MatchResult();

    private static MatchingEngine engine(final TagStorage storage)
    {
        return new MatchingEngine(new MatchingContext()
            .tagStorage(storage).rxSize(64).unexpectedEntries(64).unexpectedBytes(1 << 20).tagBuckets(16));
    }

    private int trecv(final MatchingEngine engine, final long source, final long tag, final long ignore,
        final long context, final long length)
    {
        return engine.postReceive(true, source, tag, ignore, context, 0x1000 * context, length, 0, result);
    }

    private int tsend(final MatchingEngine engine, final long source, final long tag, final long length,
        final long payload)
    {
        return engine.onArrival(source, true, tag, length, 0, payload, result);
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldMatchArrivalToPostedReceiveWithSameTag(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        assertEquals(MatchStatus.POSTED, trecv(engine, ADDR_UNSPEC, 42, 0, 1, 100));
        assertEquals(1, engine.postedCount());
        assertEquals(MatchStatus.MATCHED, engine.onArrival(SRC_A, true, 42, 60, 0xDA7A, 555, result));
        assertEquals(1, result.context());
        assertEquals(0x1000, result.bufferAddress());
        assertEquals(60, result.length());
        assertEquals(0, result.overflow());
        assertEquals(42, result.tag());
        assertEquals(SRC_A, result.source());
        assertEquals(0xDA7A, result.data());
        assertEquals(555, result.payloadHandle());
        assertEquals(MatchFlags.RECV | MatchFlags.TAGGED, result.flags());
        assertEquals(0, engine.postedCount());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldReportNotFoundOnEmptyAndNonEmptyStore(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, 1, 8, 1));
        assertEquals(MatchStatus.ENOMSG, engine.postReceive(true, ADDR_UNSPEC, 2, 0, 3, 0, 8, PEEK, result));
        assertEquals(MatchStatus.POSTED, trecv(engine, ADDR_UNSPEC, 5, 0, 4, 8));
        assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, 6, 8, 2));
        assertEquals(2, engine.unexpectedCount());
        assertEquals(1, engine.postedCount());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldInsertAndRemoveSingleEntry(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        assertEquals(MatchStatus.POSTED, trecv(engine, ADDR_UNSPEC, 77, 0, 1, 8));
        assertEquals(MatchStatus.ECANCELED, engine.cancel(1, result));
        assertEquals(0, engine.postedCount());
        assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, 77, 8, 1));
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldMatchDuplicateTagsOldestFirst(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        for (int i = 1; i <= 4; i++)
        {
            assertEquals(MatchStatus.POSTED, trecv(engine, ADDR_UNSPEC, 9, 0, i, 8));
        }
        for (int i = 1; i <= 4; i++)
        {
            assertEquals(MatchStatus.MATCHED, tsend(engine, SRC_A, 9, 8, i));
            assertEquals(i, result.context());
        }
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldMatchUnderIgnoreMaskAndRejectDifferentMaskedBits(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        assertEquals(MatchStatus.POSTED, trecv(engine, ADDR_UNSPEC, 0x1200, 0xFF, 1, 8));
        assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, 0x1300, 8, 1));
        assertEquals(MatchStatus.MATCHED, tsend(engine, SRC_A, 0x12AB, 8, 2));
        assertEquals(1, result.context());
        assertEquals(0x12AB, result.tag());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldLetOlderWildcardWinOverNewerExactAndViceVersa(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        trecv(engine, ADDR_UNSPEC, 0, -1L, 1, 8);
        trecv(engine, ADDR_UNSPEC, 5, 0, 2, 8);
        trecv(engine, ADDR_UNSPEC, 0, -1L, 3, 8);
        assertEquals(MatchStatus.MATCHED, tsend(engine, SRC_A, 5, 8, 1));
        assertEquals(1, result.context());
        assertEquals(MatchStatus.MATCHED, tsend(engine, SRC_A, 5, 8, 2));
        assertEquals(2, result.context());
        assertEquals(MatchStatus.MATCHED, tsend(engine, SRC_A, 5, 8, 3));
        assertEquals(3, result.context());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldMatchUntaggedInPostingOrderAndKeepThemApartFromTagged(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        engine.postReceive(false, ADDR_UNSPEC, 0, 0, 1, 0, 8, 0, result);
        engine.postReceive(false, ADDR_UNSPEC, 0, 0, 2, 0, 8, 0, result);
        assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, 0, 8, 1));
        assertEquals(MatchStatus.MATCHED, engine.onArrival(SRC_A, false, 123, 4, 0, 2, result));
        assertEquals(1, result.context());
        assertEquals(MatchFlags.RECV | MatchFlags.MSG, result.flags());
        assertEquals(MatchStatus.MATCHED, engine.onArrival(SRC_B, false, 0, 4, 0, 3, result));
        assertEquals(2, result.context());
        assertEquals(MatchStatus.MATCHED, trecv(engine, ADDR_UNSPEC, 0, 0, 3, 8));
        assertEquals(1, result.payloadHandle());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldLetOlderPostingWinBetweenDirectedAndAnySource(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        trecv(engine, SRC_A, 1, 0, 10, 8);
        trecv(engine, ADDR_UNSPEC, 1, 0, 11, 8);
        trecv(engine, SRC_A, 1, 0, 12, 8);
        tsend(engine, SRC_A, 1, 8, 1);
        assertEquals(10, result.context());
        tsend(engine, SRC_A, 1, 8, 2);
        assertEquals(11, result.context());
        tsend(engine, SRC_A, 1, 8, 3);
        assertEquals(12, result.context());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldNotMatchDirectedReceiveFromWrongSource(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        trecv(engine, SRC_A, 1, 0, 10, 8);
        assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_B, 1, 8, 1));
        assertEquals(MatchStatus.MATCHED, tsend(engine, SRC_A, 1, 8, 2));
        assertEquals(10, result.context());
        assertEquals(MatchStatus.POSTED, trecv(engine, SRC_A, 1, 0, 11, 8));
        assertEquals(MatchStatus.MATCHED, trecv(engine, SRC_B, 1, 0, 12, 8));
        assertEquals(1, result.payloadHandle());
        assertEquals(SRC_B, result.source());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldDeliverEveryUnexpectedMessageWhenReceivesArePostedInReverseTagOrder(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        final int n = 50;
        for (int i = 0; i < n; i++)
        {
            assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, i, 10 + i, 1000 + i));
        }
        for (int i = n - 1; i >= 0; i--)
        {
            assertEquals(MatchStatus.MATCHED, trecv(engine, SRC_A, i, 0, i, 100));
            assertEquals(1000 + i, result.payloadHandle());
            assertEquals(10 + i, result.length());
            assertEquals(i, result.tag());
        }
        assertEquals(0, engine.unexpectedCount());
        assertEquals(0, engine.unexpectedBytes());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldDeliver64kUnexpectedMessagesInWindowsOf16PostedInReverseOrder(final TagStorage storage)
    {
        final MatchingEngine engine = new MatchingEngine(new MatchingContext().tagStorage(storage)
            .unexpectedEntries(16).rxSize(16));
        final int window = 16;
        long delivered = 0;
        for (int base = 0; base < 65536; base += window)
        {
            for (int i = 0; i < window; i++)
            {
                assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, base + i, 4, base + i));
            }
            assertEquals(MatchStatus.EAGAIN, tsend(engine, SRC_A, base + window, 4, -1));
            for (int i = window - 1; i >= 0; i--)
            {
                assertEquals(MatchStatus.MATCHED, trecv(engine, SRC_A, base + i, 0, 1, 4));
                assertEquals(base + i, result.payloadHandle());
                delivered++;
            }
        }
        assertEquals(65536, delivered);
        assertEquals(0, engine.unexpectedCount());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldSearchOwnSourceForDirectedAndOldestOfAllForAnySource(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        tsend(engine, SRC_B, 3, 8, 1);
        tsend(engine, SRC_A, 3, 8, 2);
        tsend(engine, SRC_B, 3, 8, 3);
        assertEquals(MatchStatus.MATCHED, trecv(engine, SRC_A, 3, 0, 1, 8));
        assertEquals(2, result.payloadHandle());
        assertEquals(MatchStatus.MATCHED, trecv(engine, ADDR_UNSPEC, 3, 0, 2, 8));
        assertEquals(1, result.payloadHandle());
        assertEquals(MatchStatus.POSTED, trecv(engine, SRC_A, 3, 0, 3, 8));
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldBackPressureAtEntryBoundWithoutDroppingAndAcceptAgainAfterDrain(final TagStorage storage)
    {
        final MatchingEngine engine = new MatchingEngine(new MatchingContext().tagStorage(storage)
            .unexpectedEntries(2).unexpectedBytes(1000));
        assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, 1, 10, 1));
        assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, 2, 10, 2));
        assertEquals(MatchStatus.EAGAIN, tsend(engine, SRC_A, 3, 10, 3));
        assertEquals(2, engine.unexpectedCount());
        assertEquals(MatchStatus.MATCHED, trecv(engine, ADDR_UNSPEC, 1, 0, 1, 10));
        assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, 3, 10, 3));
        assertEquals(MatchStatus.MATCHED, trecv(engine, ADDR_UNSPEC, 2, 0, 2, 10));
        assertEquals(2, result.payloadHandle());
        assertEquals(MatchStatus.MATCHED, trecv(engine, ADDR_UNSPEC, 3, 0, 3, 10));
        assertEquals(3, result.payloadHandle());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldBackPressureAtByteBound(final TagStorage storage)
    {
        final MatchingEngine engine = new MatchingEngine(new MatchingContext().tagStorage(storage)
            .unexpectedEntries(100).unexpectedBytes(100));
        assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, 1, 60, 1));
        assertEquals(MatchStatus.EAGAIN, tsend(engine, SRC_A, 2, 41, 2));
        assertEquals(MatchStatus.QUEUED, tsend(engine, SRC_A, 2, 40, 2));
        assertEquals(100, engine.unexpectedBytes());
        assertEquals(MatchStatus.MATCHED, trecv(engine, ADDR_UNSPEC, 1, 0, 1, 100));
        assertEquals(40, engine.unexpectedBytes());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldRunPeekClaimDiscardSequence(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        assertEquals(MatchStatus.ENOMSG, engine.postReceive(true, ADDR_UNSPEC, 1, 0, 5, 0, 8, PEEK, result));
        assertEquals(MatchStatus.ENOMSG,
            engine.postReceive(true, ADDR_UNSPEC, 1, 0, 5, 0, 8, PEEK | CLAIM, result));
        tsend(engine, SRC_A, 1, 8, 101);
        tsend(engine, SRC_A, 2, 8, 102);
        tsend(engine, SRC_A, 3, 8, 103);

        assertEquals(MatchStatus.PEEKED, engine.postReceive(true, ADDR_UNSPEC, 1, 0, 5, 0, 8, PEEK, result));
        assertEquals(101, result.payloadHandle());
        assertEquals(SRC_A, result.source());
        assertEquals(3, engine.unexpectedCount());

        assertEquals(MatchStatus.PEEKED,
            engine.postReceive(true, ADDR_UNSPEC, 1, 0, 5, 0, 8, PEEK | CLAIM, result));
        assertEquals(MatchStatus.ENOMSG, engine.postReceive(true, ADDR_UNSPEC, 1, 0, 6, 0, 8, PEEK, result));
        assertEquals(MatchStatus.POSTED, trecv(engine, ADDR_UNSPEC, 1, 0, 7, 8));
        assertEquals(1, engine.cancel(7, result) == MatchStatus.ECANCELED ? 1 : 0);
        assertEquals(MatchStatus.ENOMSG, engine.postReceive(true, ADDR_UNSPEC, 0, 0, 6, 0, 8, CLAIM, result));
        assertEquals(MatchStatus.MATCHED, engine.postReceive(true, ADDR_UNSPEC, 0, 0, 5, 0x50, 8, CLAIM, result));
        assertEquals(101, result.payloadHandle());
        assertEquals(0x50, result.bufferAddress());

        assertEquals(MatchStatus.DISCARDED,
            engine.postReceive(true, ADDR_UNSPEC, 2, 0, 8, 0, 8, PEEK | DISCARD, result));
        assertEquals(102, result.payloadHandle());
        assertEquals(MatchStatus.ENOMSG, engine.postReceive(true, ADDR_UNSPEC, 2, 0, 8, 0, 8, PEEK, result));

        assertEquals(MatchStatus.PEEKED,
            engine.postReceive(true, ADDR_UNSPEC, 3, 0, 9, 0, 8, PEEK | CLAIM, result));
        assertEquals(MatchStatus.DISCARDED,
            engine.postReceive(true, ADDR_UNSPEC, 0, 0, 9, 0, 8, CLAIM | DISCARD, result));
        assertEquals(103, result.payloadHandle());
        assertEquals(0, engine.unexpectedCount());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldRefuseInvalidFlagCombinations(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        tsend(engine, SRC_A, 1, 8, 1);
        assertEquals(MatchStatus.EINVAL, engine.postReceive(true, ADDR_UNSPEC, 1, 0, 1, 0, 8, DISCARD, result));
        assertEquals(MatchStatus.EINVAL,
            engine.postReceive(true, ADDR_UNSPEC, 1, 0, 1, 0, 8, PEEK | CLAIM | DISCARD, result));
        assertEquals(MatchStatus.EINVAL,
            engine.postReceive(true, ADDR_UNSPEC, 1, 0, 1, 0, 8, MULTI_RECV | PEEK, result));
        assertEquals(MatchStatus.EINVAL, engine.postReceive(true, ADDR_UNSPEC, 1, 0, 1, 0, -1, 0, result));
        assertEquals(MatchStatus.EINVAL, engine.onArrival(SRC_A, true, 1, -5, 0, 2, result));
        assertEquals(1, engine.unexpectedCount());
        assertEquals(0, engine.postedCount());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldAnswerTsearchHitMissClaimAndDiscard(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        assertEquals(MatchStatus.ENOMSG, engine.tsearch(ADDR_UNSPEC, 4, 0, 0, 1, result));
        engine.onArrival(SRC_A, true, 4, 33, 0, 201, result);
        engine.onArrival(SRC_A, true, 4, 44, 0, 202, result);
        assertEquals(1, engine.tsearch(ADDR_UNSPEC, 4, 0, 0, 1, result));
        assertEquals(4, result.tag());
        assertEquals(33, result.messageLength());
        assertEquals(SRC_A, result.source());
        assertEquals(1, engine.tsearch(SRC_A, 4, 0, CLAIM, 2, result));
        assertEquals(201, result.payloadHandle());
        assertEquals(1, engine.tsearch(SRC_A, 4, 0, 0, 3, result));
        assertEquals(202, result.payloadHandle());
        assertEquals(1, engine.tsearch(SRC_A, 4, 0, DISCARD, 3, result));
        assertEquals(202, result.payloadHandle());
        assertEquals(MatchStatus.ENOMSG, engine.tsearch(SRC_A, 4, 0, 0, 4, result));
        assertEquals(MatchStatus.MATCHED, engine.postReceive(true, ADDR_UNSPEC, 0, 0, 2, 0, 64, CLAIM, result));
        assertEquals(201, result.payloadHandle());
        assertEquals(MatchStatus.EINVAL, engine.tsearch(SRC_A, 4, 0, CLAIM | DISCARD, 4, result));
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldDeferDirectedTsearchWhileUnresolvedSourcesMayMatch(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        engine.onUnresolvedArrival(0xABCL, true, 8, 16, 0, 301, result);
        assertEquals(0, engine.tsearch(SRC_A, 8, 0, 0, 77, result));
        assertEquals(0, engine.pollSearchEvent(result));
        assertEquals(1, engine.avInsert(0xABCL, SRC_A));
        assertEquals(1, engine.pollSearchEvent(result));
        assertEquals(77, result.context());
        assertEquals(301, result.payloadHandle());
        assertEquals(SRC_A, result.source());
        assertEquals(0, engine.pollSearchEvent(result));

        engine.onUnresolvedArrival(0xDEFL, true, 8, 16, 0, 302, result);
        assertEquals(0, engine.tsearch(SRC_B, 8, 0, 0, 78, result));
        engine.avInsert(0xDEFL, SRC_A);
        assertEquals(MatchStatus.ENOMSG, engine.pollSearchEvent(result));
        assertEquals(78, result.context());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldReportTheDeferredSearchsDiscardOrClaimWithItsAnswer(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        engine.onUnresolvedArrival(0xABCL, true, 8, 16, 0, 301, result);
        engine.onUnresolvedArrival(0xABCL, true, 9, 24, 0, 302, result);
        assertEquals(0, engine.tsearch(SRC_A, 8, 0, DISCARD, 77, result));
        assertEquals(0, engine.tsearch(SRC_A, 9, 0, CLAIM, 78, result));
        engine.avInsert(0xABCL, SRC_A);
        // The caller frees a discarded message's payload: the answer says it was discarded.
        assertEquals(1, engine.pollSearchEvent(result));
        assertEquals(77, result.context());
        assertEquals(301, result.payloadHandle());
        assertEquals(DISCARD, result.flags() & (DISCARD | CLAIM));
        assertEquals(1, engine.pollSearchEvent(result));
        assertEquals(78, result.context());
        assertEquals(CLAIM, result.flags() & (DISCARD | CLAIM));
        assertEquals(1, engine.unexpectedCount());
        assertEquals(MatchStatus.ENOMSG, engine.tsearch(SRC_A, 8, 0, 0, 79, result));
        // An immediate hit reports the flags too; a plain search none.
        assertEquals(MatchStatus.MATCHED, engine.postReceive(true, ADDR_UNSPEC, 0, 0, 78, 0, 64, CLAIM, result));
        engine.onArrival(SRC_A, true, 10, 8, 0, 303, result);
        assertEquals(1, engine.tsearch(SRC_A, 10, 0, 0, 80, result));
        assertEquals(0, result.flags() & (DISCARD | CLAIM));
        assertEquals(1, engine.tsearch(SRC_A, 10, 0, DISCARD, 81, result));
        assertEquals(DISCARD, result.flags() & (DISCARD | CLAIM));
        assertEquals(0, engine.unexpectedCount());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldFillMultiRecvBufferAtIncreasingOffsetsAndReleaseBelowMinimum(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        assertEquals(0, engine.minMultiRecv(20));
        assertEquals(MatchStatus.POSTED,
            engine.postReceive(false, ADDR_UNSPEC, 0, 0, 1, 0x10000, 100, MULTI_RECV, result));
        final long handle = result.receiveHandle();
        long expectedOffset = 0;
        for (int i = 0; i < 3; i++)
        {
            assertEquals(MatchStatus.MATCHED, engine.onArrival(SRC_A, false, 0, 25, 0, i, result));
            assertEquals(expectedOffset, result.offset());
            assertEquals(25, result.length());
            assertEquals(1, result.context());
            assertFalse(result.multiRecvReleased());
            assertEquals(handle, result.receiveHandle());
            expectedOffset += 25;
        }
        assertEquals(MatchStatus.MATCHED, engine.onArrival(SRC_A, false, 0, 10, 0, 3, result));
        assertEquals(75, result.offset());
        assertTrue(result.multiRecvReleased());
        assertEquals(0, engine.postedCount());
        assertEquals(MatchStatus.QUEUED, engine.onArrival(SRC_A, false, 0, 10, 0, 4, result));
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldTruncateIntoMultiRecvRemainder(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        engine.minMultiRecv(10);
        engine.postReceive(false, ADDR_UNSPEC, 0, 0, 1, 0, 50, MULTI_RECV, result);
        engine.onArrival(SRC_A, false, 0, 30, 0, 1, result);
        assertEquals(MatchStatus.MATCHED, engine.onArrival(SRC_A, false, 0, 30, 0, 2, result));
        assertEquals(30, result.offset());
        assertEquals(20, result.length());
        assertEquals(10, result.overflow());
        assertTrue(result.multiRecvReleased());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldDrainUnexpectedMessagesIntoNewMultiRecvBuffer(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        engine.minMultiRecv(8);
        for (int i = 0; i < 5; i++)
        {
            engine.onArrival(SRC_A, false, 0, 16, 0, 400 + i, result);
        }
        assertEquals(MatchStatus.MATCHED,
            engine.postReceive(false, ADDR_UNSPEC, 0, 0, 9, 0x2000, 64, MULTI_RECV, result));
        final long handle = result.receiveHandle();
        assertEquals(400, result.payloadHandle());
        assertEquals(0, result.offset());
        int delivered = 1;
        int status;
        while ((status = engine.drainMultiRecv(handle, result)) == MatchStatus.MATCHED)
        {
            assertEquals(400 + delivered, result.payloadHandle());
            assertEquals(16L * delivered, result.offset());
            delivered++;
            if (result.multiRecvReleased())
            {
                break;
            }
        }
        assertEquals(4, delivered);
        assertTrue(result.multiRecvReleased());
        assertEquals(MatchStatus.ENOENT, engine.drainMultiRecv(handle, result));
        assertEquals(1, engine.unexpectedCount());
        assertEquals(MatchStatus.MATCHED, status);
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldRefuseZeroMinimumMultiRecv(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        final long before = engine.minMultiRecv();
        assertEquals(MatchStatus.EINVAL, engine.minMultiRecv(0));
        assertEquals(before, engine.minMultiRecv());
        assertThrows(IllegalArgumentException.class,
            () -> new MatchingEngine(new MatchingContext().tagStorage(storage).minMultiRecv(0)));
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldCompleteWithEcanceledWhenPostedReceiveIsCancelledAndLetOthersComplete(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        trecv(engine, ADDR_UNSPEC, 1, 0, 1, 8);
        trecv(engine, SRC_A, 1, 0, 2, 8);
        trecv(engine, ADDR_UNSPEC, 1, 0, 3, 8);
        assertEquals(MatchStatus.ECANCELED, engine.cancel(2, result));
        assertEquals(2, result.context());
        assertEquals(0x2000, result.bufferAddress());
        assertEquals(MatchFlags.RECV | MatchFlags.TAGGED, result.flags());
        assertEquals(MatchStatus.ENOENT, engine.cancel(2, result));
        tsend(engine, SRC_A, 1, 8, 1);
        assertEquals(1, result.context());
        tsend(engine, SRC_A, 1, 8, 2);
        assertEquals(3, result.context());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldRefuseToCancelMultiRecvWithDataInFlight(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        engine.minMultiRecv(1);
        engine.postReceive(false, ADDR_UNSPEC, 0, 0, 5, 0, 100, MULTI_RECV, result);
        engine.onArrival(SRC_A, false, 0, 10, 0, 1, result);
        final long handle = result.receiveHandle();
        assertEquals(MatchStatus.EAGAIN, engine.cancel(5, result));
        assertTrue(engine.multiRecvSegmentComplete(handle));
        assertFalse(engine.multiRecvSegmentComplete(handle));
        assertEquals(MatchStatus.ECANCELED, engine.cancel(5, result));
        assertEquals(10, result.offset());
        assertTrue(result.multiRecvReleased());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldNotCancelUnexpectedMessages(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        engine.onArrival(SRC_A, true, 1, 8, 0, 5, result);
        engine.postReceive(true, ADDR_UNSPEC, 1, 0, 5, 0, 8, PEEK | CLAIM, result);
        assertEquals(MatchStatus.ENOENT, engine.cancel(5, result));
        assertEquals(1, engine.unexpectedCount());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldReportOverflowForEtrunc(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        trecv(engine, ADDR_UNSPEC, 1, 0, 1, 10);
        tsend(engine, SRC_A, 1, 25, 1);
        assertEquals(10, result.length());
        assertEquals(15, result.overflow());
        assertEquals(25, result.messageLength());
        tsend(engine, SRC_A, 2, 30, 2);
        trecv(engine, ADDR_UNSPEC, 2, 0, 2, 4);
        assertEquals(4, result.length());
        assertEquals(26, result.overflow());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldGiveEagainWhenPostedPoolIsExhausted(final TagStorage storage)
    {
        final MatchingEngine engine = new MatchingEngine(new MatchingContext().tagStorage(storage).rxSize(2));
        assertEquals(MatchStatus.POSTED, trecv(engine, ADDR_UNSPEC, 1, 0, 1, 8));
        assertEquals(MatchStatus.POSTED, trecv(engine, SRC_A, 1, 0, 2, 8));
        assertEquals(MatchStatus.EAGAIN, trecv(engine, ADDR_UNSPEC, 1, 0, 3, 8));
        tsend(engine, SRC_A, 1, 8, 1);
        assertEquals(MatchStatus.POSTED, trecv(engine, ADDR_UNSPEC, 1, 0, 3, 8));
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldMatchUnspecifiedSourceMessageAfterAddressIsInserted(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        assertEquals(MatchStatus.POSTED, trecv(engine, SRC_A, 6, 0, 1, 8));
        assertEquals(MatchStatus.QUEUED, engine.onUnresolvedArrival(0xBEEFL, true, 6, 8, 0, 11, result));
        assertEquals(MatchStatus.QUEUED, engine.onUnresolvedArrival(0xBEEFL, true, 6, 8, 0, 12, result));
        assertEquals(MatchStatus.ENOMSG, engine.pollRehomedMatch(result));
        assertEquals(2, engine.avInsert(0xBEEFL, SRC_A));
        assertEquals(MatchStatus.MATCHED, engine.pollRehomedMatch(result));
        assertEquals(1, result.context());
        assertEquals(11, result.payloadHandle());
        assertEquals(SRC_A, result.source());
        assertEquals(MatchStatus.ENOMSG, engine.pollRehomedMatch(result));
        assertEquals(MatchStatus.MATCHED, trecv(engine, SRC_A, 6, 0, 2, 8));
        assertEquals(12, result.payloadHandle());
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldKeepRehomedOrderWhenAgentInsertsManyAddressesWithoutPolling(final TagStorage storage)
    {
        final MatchingEngine engine = new MatchingEngine(new MatchingContext().tagStorage(storage)
            .unexpectedEntries(2));
        for (int i = 0; i < 5; i++)
        {
            engine.onUnresolvedArrival(500 + i, true, 1, 8, 0, 600 + i, result);
            assertEquals(1, engine.avInsert(500 + i, 40 + i));
            assertEquals(MatchStatus.MATCHED, trecv(engine, ADDR_UNSPEC, 1, 0, 1, 8));
            assertEquals(600 + i, result.payloadHandle());
        }
        engine.onUnresolvedArrival(700, true, 2, 8, 0, 701, result);
        engine.onUnresolvedArrival(700, true, 2, 8, 0, 702, result);
        assertEquals(MatchStatus.POSTED, trecv(engine, SRC_A, 2, 0, 2, 8));
        assertEquals(MatchStatus.POSTED, trecv(engine, SRC_A, 2, 0, 3, 8));
        assertEquals(2, engine.avInsert(700, SRC_A));
        assertEquals(MatchStatus.MATCHED, engine.pollRehomedMatch(result));
        assertEquals(701, result.payloadHandle());
        assertEquals(2, result.context());
        assertEquals(MatchStatus.MATCHED, engine.pollRehomedMatch(result));
        assertEquals(702, result.payloadHandle());
        assertEquals(3, result.context());
        assertEquals(MatchStatus.ENOMSG, engine.pollRehomedMatch(result));
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldMatchUnspecifiedSourceToAnySourceReceiveWithRawKey(final TagStorage storage)
    {
        final MatchingEngine engine = engine(storage);
        trecv(engine, SRC_A, 6, 0, 1, 8);
        trecv(engine, ADDR_UNSPEC, 6, 0, 2, 8);
        assertEquals(MatchStatus.MATCHED, engine.onUnresolvedArrival(0xBEEFL, true, 6, 8, 0, 11, result));
        assertEquals(2, result.context());
        assertEquals(0xBEEFL, result.source());
        assertTrue((result.flags() & MatchFlags.SOURCE_UNRESOLVED) != 0);
        engine.onUnresolvedArrival(0xBEEFL, true, 6, 8, 0, 12, result);
        assertEquals(MatchStatus.MATCHED, trecv(engine, ADDR_UNSPEC, 6, 0, 3, 8));
        assertEquals(12, result.payloadHandle());
        assertTrue((result.flags() & MatchFlags.SOURCE_UNRESOLVED) != 0);
        assertEquals(0, engine.avInsert(0xBEEFL, SRC_A));
    }

    @ParameterizedTest
    @EnumSource(TagStorage.class)
    void shouldMapGniHashTagImplOption(final TagStorage storage)
    {
        assertEquals(storage == TagStorage.INDEX, TagStorage.fromGniHashTagImpl(storage == TagStorage.INDEX) ==
            TagStorage.INDEX);
        assertEquals(storage, engine(storage).tagStorage());
    }

    /**
     * AUTO moves a queue to the index at its fourth receive and back when it empties; the matches are those of
     * LIST throughout: exact tags, receives with ignore bits, directed and FI_ADDR_UNSPEC receives, oldest first.
     */
    @Test
    void autoStorageShouldMatchLikeTheListAcrossTheSwitch()
    {
        final MatchingEngine auto = new MatchingEngine(new MatchingContext().tagStorage(TagStorage.AUTO)
            .indexDepth(4).rxSize(64).unexpectedEntries(64).unexpectedBytes(1 << 20).tagBuckets(4));
        final MatchingEngine list = engine(TagStorage.LIST);
        final long[][] receives = {
            {ADDR_UNSPEC, 5, 0}, {ADDR_UNSPEC, 4, 1}, {SRC_A, 5, 0}, {ADDR_UNSPEC, 6, 0}, {ADDR_UNSPEC, 5, 0},
            {SRC_A, 4, 3}, {ADDR_UNSPEC, 0, -1L}, {SRC_A, 5, 0}, {ADDR_UNSPEC, 7, 0}, {SRC_A, 6, 0},
        };
        for (int i = 0; i < receives.length; i++)
        {
            assertEquals(MatchStatus.POSTED, trecv(auto, receives[i][0], receives[i][1], receives[i][2], i + 1, 8));
            // The any-source queue holds its fourth receive at i = 4.
            assertEquals(i >= 4, auto.anySourceIndexed(), "receive " + i);
            trecv(list, receives[i][0], receives[i][1], receives[i][2], i + 1, 8);
        }
        assertTrue(auto.anySourceIndexed());
        final long[][] arrivals = {{SRC_A, 5}, {SRC_B, 5}, {SRC_A, 4}, {SRC_A, 5}, {SRC_A, 6}, {SRC_B, 9},
            {SRC_A, 7}, {SRC_A, 6}, {SRC_A, 5}, {SRC_A, 5}};
        for (final long[] arrival : arrivals)
        {
            final int expected = tsend(list, arrival[0], arrival[1], 8, 1);
            final long expectedContext = result.context();
            assertEquals(expected, tsend(auto, arrival[0], arrival[1], 8, 1), "tag " + arrival[1]);
            assertEquals(expectedContext, result.context(), "tag " + arrival[1]);
        }
        assertEquals(0, auto.postedCount());
        assertFalse(auto.anySourceIndexed());
        assertEquals(4, auto.indexSwitches());
    }
}
