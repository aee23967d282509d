package io.jfabric.provider.gni;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.FabricException;
import io.jfabric.aries.AmoCmd;
import io.jfabric.spi.AtomicCapabilities;
import io.jfabric.spi.OperationCommand;

/**
 * fi_gni(7)'s atomic table and its mapping to the AMO unit's commands (GNI.md §2.6): MIN/MAX without unsigned
 * types, SUM without double, BOR/BAND/BXOR without floating point, ATOMIC_WRITE on all six, ATOMIC_READ fetching
 * only ({@code FAND(~0)}), CSWAP ({@code FCSWAP}) and MSWAP ({@code FAX(~mask, value & mask)}) on all six; 32- and
 * 64-bit types only; one element per operation (the valid queries answer 1). Every other pair is
 * {@code EOPNOTSUPP}.
 * <p>
 * Stateless; thread-safe.
 */
final class GniAtomics
{
    private static final AtomicDatatype[] SIX = {
        AtomicDatatype.INT32, AtomicDatatype.UINT32, AtomicDatatype.INT64, AtomicDatatype.UINT64,
        AtomicDatatype.FLOAT, AtomicDatatype.DOUBLE};
    private static final AtomicDatatype[] SIGNED_AND_REAL = {
        AtomicDatatype.INT32, AtomicDatatype.INT64, AtomicDatatype.FLOAT, AtomicDatatype.DOUBLE};
    private static final AtomicDatatype[] NO_DOUBLE = {
        AtomicDatatype.INT32, AtomicDatatype.UINT32, AtomicDatatype.INT64, AtomicDatatype.UINT64,
        AtomicDatatype.FLOAT};
    private static final AtomicDatatype[] INTEGERS = {
        AtomicDatatype.INT32, AtomicDatatype.UINT32, AtomicDatatype.INT64, AtomicDatatype.UINT64};

    /** The table the runtime answers the valid queries and refuses unsupported pairs with. */
    static final AtomicCapabilities TABLE = table();

    private GniAtomics()
    {
    }

    private static AtomicCapabilities table()
    {
        AtomicCapabilities t = AtomicCapabilities.none(16).maxCount(1);
        for (final AtomicCapabilities.Kind kind : new AtomicCapabilities.Kind[] {
            AtomicCapabilities.Kind.ATOMIC, AtomicCapabilities.Kind.FETCH})
        {
            t = add(t, kind, AtomicOp.MIN, SIGNED_AND_REAL);
            t = add(t, kind, AtomicOp.MAX, SIGNED_AND_REAL);
            t = add(t, kind, AtomicOp.SUM, NO_DOUBLE);
            t = add(t, kind, AtomicOp.BOR, INTEGERS);
            t = add(t, kind, AtomicOp.BAND, INTEGERS);
            t = add(t, kind, AtomicOp.BXOR, INTEGERS);
            t = add(t, kind, AtomicOp.ATOMIC_WRITE, SIX);
        }
        t = add(t, AtomicCapabilities.Kind.FETCH, AtomicOp.ATOMIC_READ, SIX);
        t = add(t, AtomicCapabilities.Kind.COMPARE, AtomicOp.CSWAP, SIX);
        t = add(t, AtomicCapabilities.Kind.COMPARE, AtomicOp.MSWAP, SIX);
        return t;
    }

    private static AtomicCapabilities add(
        final AtomicCapabilities table, final AtomicCapabilities.Kind kind, final AtomicOp op,
        final AtomicDatatype[] datatypes)
    {
        AtomicCapabilities t = table;
        for (final AtomicDatatype datatype : datatypes)
        {
            try
            {
                t = t.with(kind, op, datatype);
            }
            catch (final FabricException ex)
            {
                // The runtime's table cannot describe this triple (never the case for fi_gni's table today).
            }
        }
        return t;
    }

    /**
     * @param datatype a datatype's libfabric value.
     * @return whether it is a 4-byte type.
     */
    static boolean short32(final int datatype)
    {
        return AtomicDatatype.INT32.value() == datatype || AtomicDatatype.UINT32.value() == datatype ||
            AtomicDatatype.FLOAT.value() == datatype;
    }

    /**
     * @param datatype a datatype's libfabric value.
     * @return whether it is a floating-point type.
     */
    static boolean real(final int datatype)
    {
        return AtomicDatatype.FLOAT.value() == datatype || AtomicDatatype.DOUBLE.value() == datatype;
    }

    /**
     * The AMO command of an operation the table allows.
     *
     * @param kind     {@link OperationCommand#ATOMIC_BASE}, {@code ATOMIC_FETCH} or {@code ATOMIC_COMPARE}.
     * @param op       the op's libfabric value.
     * @param datatype the datatype's libfabric value.
     * @return the command ({@link AmoCmd} bits), or -1 when fi_gni(7) has none.
     */
    static int command(final int kind, final int op, final int datatype)
    {
        final int size = short32(datatype) ? AmoCmd.SHORT : 0;
        final int fetch = OperationCommand.ATOMIC_BASE == kind ? 0 : AmoCmd.FETCH;
        final boolean real = real(datatype);
        final int base;
        if (AtomicOp.MIN.value() == op)
        {
            base = real ? AmoCmd.FPMIN : AmoCmd.IMIN;
        }
        else if (AtomicOp.MAX.value() == op)
        {
            base = real ? AmoCmd.FPMAX : AmoCmd.IMAX;
        }
        else if (AtomicOp.SUM.value() == op)
        {
            base = real ? AmoCmd.FPADD : AmoCmd.IADD;
        }
        else if (AtomicOp.BOR.value() == op)
        {
            base = AmoCmd.OR;
        }
        else if (AtomicOp.BAND.value() == op || AtomicOp.ATOMIC_READ.value() == op)
        {
            base = AmoCmd.AND;
        }
        else if (AtomicOp.BXOR.value() == op)
        {
            base = AmoCmd.XOR;
        }
        else if (AtomicOp.ATOMIC_WRITE.value() == op)
        {
            base = AmoCmd.SWAP;
        }
        else if (AtomicOp.CSWAP.value() == op)
        {
            base = AmoCmd.CSWAP;
        }
        else if (AtomicOp.MSWAP.value() == op)
        {
            base = AmoCmd.AX;
        }
        else
        {
            return -1;
        }
        return base | fetch | size;
    }
}
