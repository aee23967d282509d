package io.jfabric.spi;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.junit.jupiter.api.Test;

import static io.jfabric.spi.AtomicCapabilities.Kind.ATOMIC;
import static io.jfabric.spi.AtomicCapabilities.Kind.COMPARE;
import static io.jfabric.spi.AtomicCapabilities.Kind.FETCH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AtomicCapabilitiesTest
{
    private static final long EOPNOTSUPP = -Errno.EOPNOTSUPP.value();

    @Test
    void shouldAnswerMaxBytesOverElementSizeForSupportedTriples()
    {
        final AtomicCapabilities caps = AtomicCapabilities.full(64);
        assertEquals(64, caps.valid(ATOMIC, AtomicOp.SUM, AtomicDatatype.INT8));
        assertEquals(8, caps.valid(FETCH, AtomicOp.ATOMIC_READ, AtomicDatatype.UINT64));
        assertEquals(4, caps.valid(COMPARE, AtomicOp.CSWAP, AtomicDatatype.DOUBLE_COMPLEX));
        assertEquals(16, caps.valid(ATOMIC, AtomicOp.MIN, AtomicDatatype.FLOAT));
    }

    @Test
    void shouldFollowLibfabricUtilTableForWhatIsUnsupported()
    {
        final AtomicCapabilities caps = AtomicCapabilities.full(64);
        // ATOMIC_READ only fetches; compare ops only in the compare family; no fetch/atomic compare.
        assertEquals(EOPNOTSUPP, caps.valid(ATOMIC, AtomicOp.ATOMIC_READ, AtomicDatatype.INT32));
        assertEquals(EOPNOTSUPP, caps.valid(ATOMIC, AtomicOp.CSWAP, AtomicDatatype.INT32));
        assertEquals(EOPNOTSUPP, caps.valid(FETCH, AtomicOp.MSWAP, AtomicDatatype.INT32));
        assertEquals(EOPNOTSUPP, caps.valid(COMPARE, AtomicOp.SUM, AtomicDatatype.INT32));
        // Bitwise ops on floats and complex; ordering on complex; MSWAP on floats.
        assertEquals(EOPNOTSUPP, caps.valid(ATOMIC, AtomicOp.BOR, AtomicDatatype.FLOAT));
        assertEquals(EOPNOTSUPP, caps.valid(FETCH, AtomicOp.BXOR, AtomicDatatype.DOUBLE_COMPLEX));
        assertEquals(EOPNOTSUPP, caps.valid(ATOMIC, AtomicOp.MIN, AtomicDatatype.FLOAT_COMPLEX));
        assertEquals(EOPNOTSUPP, caps.valid(COMPARE, AtomicOp.CSWAP_LT, AtomicDatatype.DOUBLE_COMPLEX));
        assertEquals(EOPNOTSUPP, caps.valid(COMPARE, AtomicOp.MSWAP, AtomicDatatype.DOUBLE));
        // Logical ops on real and complex floats are in libfabric's table.
        assertEquals(8, caps.valid(ATOMIC, AtomicOp.LXOR, AtomicDatatype.FLOAT_COMPLEX));
        assertEquals(8, caps.valid(FETCH, AtomicOp.LAND, AtomicDatatype.DOUBLE));
    }

    @Test
    void shouldMatchLibfabricUtilTableForEveryTriple()
    {
        // Rows of prov/util/src/util_atomic.c: I = integers, R = integers and real floats, A = R and complex.
        final String atomic = "RRAAAAIIAI-A-------";
        final String fetch = "RRAAAAIIAIAA-------";
        final String compare = "------------AARRRRI";
        final AtomicCapabilities caps = AtomicCapabilities.full(64);
        for (final AtomicOp op : AtomicOp.values())
        {
            for (final AtomicDatatype datatype : AtomicDatatype.values())
            {
                assertEquals(expected(atomic.charAt(op.value()), datatype), caps.supports(ATOMIC, op, datatype),
                    "ATOMIC " + op + " " + datatype);
                assertEquals(expected(fetch.charAt(op.value()), datatype), caps.supports(FETCH, op, datatype),
                    "FETCH " + op + " " + datatype);
                assertEquals(expected(compare.charAt(op.value()), datatype), caps.supports(COMPARE, op, datatype),
                    "COMPARE " + op + " " + datatype);
            }
        }
    }

    private static boolean expected(final char row, final AtomicDatatype datatype)
    {
        final boolean integer = datatype.value() <= AtomicDatatype.UINT64.value();
        final boolean real = integer || datatype == AtomicDatatype.FLOAT || datatype == AtomicDatatype.DOUBLE;
        final boolean any = real || datatype == AtomicDatatype.FLOAT_COMPLEX ||
            datatype == AtomicDatatype.DOUBLE_COMPLEX;
        switch (row)
        {
            case 'I':
                return integer;
            case 'R':
                return real;
            case 'A':
                return any;
            default:
                return false;
        }
    }

    @Test
    void shouldSupportNothingOnTypesWithoutJavaRepresentation()
    {
        final AtomicCapabilities caps = AtomicCapabilities.full(1024);
        for (final AtomicCapabilities.Kind kind : AtomicCapabilities.Kind.values())
        {
            for (final AtomicOp op : AtomicOp.values())
            {
                assertEquals(EOPNOTSUPP, caps.valid(kind, op, AtomicDatatype.LONG_DOUBLE));
                assertEquals(EOPNOTSUPP, caps.valid(kind, op, AtomicDatatype.LONG_DOUBLE_COMPLEX));
                assertEquals(EOPNOTSUPP, caps.valid(kind, op, AtomicDatatype.INT128));
                assertEquals(EOPNOTSUPP, caps.valid(kind, op, AtomicDatatype.UINT128));
            }
        }
    }

    @Test
    void shouldAnswerEopnotsuppForNullArguments()
    {
        final AtomicCapabilities caps = AtomicCapabilities.full(64);
        assertEquals(EOPNOTSUPP, caps.valid(null, AtomicOp.SUM, AtomicDatatype.INT8));
        assertEquals(EOPNOTSUPP, caps.valid(ATOMIC, null, AtomicDatatype.INT8));
        assertEquals(EOPNOTSUPP, caps.valid(ATOMIC, AtomicOp.SUM, null));
    }

    @Test
    void shouldNarrowWithoutChangingTheOriginal()
    {
        final AtomicCapabilities full = AtomicCapabilities.full(64);
        final AtomicCapabilities narrowed = full
            .without(AtomicDatatype.INT8)
            .without(FETCH, AtomicOp.SUM, AtomicDatatype.DOUBLE);
        assertFalse(narrowed.supports(ATOMIC, AtomicOp.SUM, AtomicDatatype.INT8));
        assertFalse(narrowed.supports(COMPARE, AtomicOp.CSWAP, AtomicDatatype.INT8));
        assertFalse(narrowed.supports(FETCH, AtomicOp.SUM, AtomicDatatype.DOUBLE));
        assertTrue(narrowed.supports(ATOMIC, AtomicOp.SUM, AtomicDatatype.DOUBLE));
        assertTrue(full.supports(ATOMIC, AtomicOp.SUM, AtomicDatatype.INT8));
        assertTrue(full.supports(FETCH, AtomicOp.SUM, AtomicDatatype.DOUBLE));
    }

    @Test
    void shouldBuildARestrictedSetFromNone()
    {
        final AtomicCapabilities gniLike = AtomicCapabilities.none(64)
            .with(ATOMIC, AtomicOp.MIN, AtomicDatatype.INT32)
            .with(ATOMIC, AtomicOp.MIN, AtomicDatatype.INT64)
            .with(COMPARE, AtomicOp.MSWAP, AtomicDatatype.UINT64);
        assertEquals(16, gniLike.valid(ATOMIC, AtomicOp.MIN, AtomicDatatype.INT32));
        assertEquals(EOPNOTSUPP, gniLike.valid(ATOMIC, AtomicOp.MIN, AtomicDatatype.UINT32));
        assertEquals(8, gniLike.valid(COMPARE, AtomicOp.MSWAP, AtomicDatatype.UINT64));
        assertEquals(
            (1L << AtomicDatatype.INT32.value()) | (1L << AtomicDatatype.INT64.value()),
            gniLike.datatypeMask(ATOMIC, AtomicOp.MIN));
    }

    @Test
    void shouldRefuseToAdvertiseWhatTheExecutorCannotRun()
    {
        final AtomicCapabilities none = AtomicCapabilities.none(64);
        final FabricException e = assertThrows(
            FabricException.class, () -> none.with(ATOMIC, AtomicOp.BOR, AtomicDatatype.FLOAT));
        assertEquals(Errno.EOPNOTSUPP, e.errno());
        assertThrows(FabricException.class, () -> none.with(FETCH, AtomicOp.SUM, AtomicDatatype.LONG_DOUBLE));
    }

    @Test
    void shouldIntersectTriplesAndTakeTheSmallerPayload()
    {
        final AtomicCapabilities a = AtomicCapabilities.full(256);
        final AtomicCapabilities b = AtomicCapabilities.none(64).with(FETCH, AtomicOp.SUM, AtomicDatatype.UINT32);
        final AtomicCapabilities both = a.intersect(b);
        assertEquals(64, both.maxBytes());
        assertEquals(16, both.valid(FETCH, AtomicOp.SUM, AtomicDatatype.UINT32));
        assertEquals(EOPNOTSUPP, both.valid(ATOMIC, AtomicOp.SUM, AtomicDatatype.UINT32));
        assertEquals(b.maxBytes(64), both);
        assertEquals(b.hashCode(), both.hashCode());
        assertTrue(both.toString().contains("FETCH FI_SUM=[FI_UINT32]"));
    }

    @Test
    void shouldRejectPayloadLimitsBelowTheLargestElement()
    {
        final FabricException e = assertThrows(FabricException.class, () -> AtomicCapabilities.full(15));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(1, AtomicCapabilities.full(16).valid(COMPARE, AtomicOp.CSWAP, AtomicDatatype.DOUBLE_COMPLEX));
    }

    @Test
    void shouldCapTheValidCountWithMaxCountAndKeepItThroughNarrowing()
    {
        final AtomicCapabilities one = AtomicCapabilities.full(64).maxCount(1);
        assertEquals(Integer.MAX_VALUE, AtomicCapabilities.full(64).maxCount());
        assertEquals(1, one.maxCount());
        assertEquals(1, one.valid(ATOMIC, AtomicOp.SUM, AtomicDatatype.INT8));
        assertEquals(1, one.valid(FETCH, AtomicOp.SUM, AtomicDatatype.INT64));
        assertEquals(1, one.without(AtomicDatatype.INT8).valid(ATOMIC, AtomicOp.MIN, AtomicDatatype.INT32));
        assertEquals(1, one.intersect(AtomicCapabilities.full(64)).valid(ATOMIC, AtomicOp.MIN, AtomicDatatype.INT32));
        assertEquals(1, AtomicCapabilities.none(16).maxCount(1).with(ATOMIC, AtomicOp.SUM, AtomicDatatype.INT32)
            .valid(ATOMIC, AtomicOp.SUM, AtomicDatatype.INT32));
        assertEquals(8, AtomicCapabilities.full(64).maxCount(8).valid(ATOMIC, AtomicOp.SUM, AtomicDatatype.INT8));
        assertEquals(Errno.EOPNOTSUPP.negated(), one.valid(ATOMIC, AtomicOp.SUM, null));
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
            () -> AtomicCapabilities.full(64).maxCount(0)).errno());
        assertFalse(one.equals(AtomicCapabilities.full(64)));
    }
}
