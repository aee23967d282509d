package io.jfabric.agent;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AtomicEnumsTest
{
    @Test
    void shouldCarryLibfabricOpValues()
    {
        final String[] names = {
            "FI_MIN", "FI_MAX", "FI_SUM", "FI_PROD", "FI_LOR", "FI_LAND", "FI_BOR", "FI_BAND", "FI_LXOR", "FI_BXOR",
            "FI_ATOMIC_READ", "FI_ATOMIC_WRITE", "FI_CSWAP", "FI_CSWAP_NE", "FI_CSWAP_LE", "FI_CSWAP_LT",
            "FI_CSWAP_GE", "FI_CSWAP_GT", "FI_MSWAP" };
        assertEquals(names.length, AtomicOp.values().length);
        for (int i = 0; i < names.length; i++)
        {
            final AtomicOp op = AtomicOp.fromValue(i);
            assertEquals(i, op.value());
            assertEquals(names[i], op.fiName());
            assertSame(op, AtomicOp.parse(names[i]));
        }
    }

    @Test
    void shouldCarryLibfabricDatatypeValuesAndSizes()
    {
        final String[] names = {
            "FI_INT8", "FI_UINT8", "FI_INT16", "FI_UINT16", "FI_INT32", "FI_UINT32", "FI_INT64", "FI_UINT64",
            "FI_FLOAT", "FI_DOUBLE", "FI_FLOAT_COMPLEX", "FI_DOUBLE_COMPLEX", "FI_LONG_DOUBLE",
            "FI_LONG_DOUBLE_COMPLEX", "FI_INT128", "FI_UINT128" };
        final int[] sizes = { 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16, 16, 32, 16, 16 };
        assertEquals(names.length, AtomicDatatype.values().length);
        for (int i = 0; i < names.length; i++)
        {
            final AtomicDatatype datatype = AtomicDatatype.fromValue(i);
            assertEquals(i, datatype.value());
            assertEquals(names[i], datatype.fiName());
            assertEquals(sizes[i], datatype.size());
            assertSame(datatype, AtomicDatatype.parse(names[i]));
        }
    }

    @Test
    void shouldParseLibfabricKfabricAndShortNamesCaseInsensitively()
    {
        assertSame(AtomicOp.SUM, AtomicOp.parse("FI_SUM"));
        assertSame(AtomicOp.SUM, AtomicOp.parse("sum"));
        assertSame(AtomicOp.SUM, AtomicOp.parse("KFI_SUM"));
        assertSame(AtomicOp.CSWAP_LE, AtomicOp.parse("kfi_cswap_le"));
        assertSame(AtomicOp.ATOMIC_READ, AtomicOp.parse("atomic_read"));
        assertSame(AtomicDatatype.UINT32, AtomicDatatype.parse("uint32"));
        assertSame(AtomicDatatype.DOUBLE_COMPLEX, AtomicDatatype.parse("KFI_DOUBLE_COMPLEX"));
        assertSame(AtomicDatatype.FLOAT, AtomicDatatype.parse(" Fi_Float "));
    }

    @Test
    void shouldRejectUnknownNamesWithEinval()
    {
        final FabricException op = assertThrows(FabricException.class, () -> AtomicOp.parse("FI_AVG"));
        assertEquals(Errno.EINVAL, op.errno());
        assertTrue(op.getMessage().contains("FI_AVG"));
        final FabricException type = assertThrows(FabricException.class, () -> AtomicDatatype.parse("int7"));
        assertEquals(Errno.EINVAL, type.errno());
        assertThrows(FabricException.class, () -> AtomicOp.parse(null));
    }

    @Test
    void shouldAnswerNullForValuesOutsideTheEnums()
    {
        assertNull(AtomicOp.fromValue(-1));
        assertNull(AtomicOp.fromValue(19));
        assertNull(AtomicDatatype.fromValue(16));
        assertNull(AtomicDatatype.fromValue(Integer.MIN_VALUE));
    }

    @Test
    void shouldClassifyOpsAndDatatypes()
    {
        assertFalse(AtomicOp.ATOMIC_WRITE.isCompare());
        assertTrue(AtomicOp.CSWAP.isCompare());
        assertTrue(AtomicOp.MSWAP.isCompare());
        assertTrue(AtomicDatatype.UINT64.isInteger());
        assertFalse(AtomicDatatype.FLOAT.isInteger());
        assertTrue(AtomicDatatype.UINT8.isUnsigned());
        assertFalse(AtomicDatatype.INT64.isUnsigned());
    }
}
