package io.jfabric.aries;

/**
 * The AMO unit's commands ({@code GNI_FMA_ATOMIC2_*}, GNI.md §1.8): a base operation, optionally fetching
 * ({@code F} prefix: the old value is returned into the descriptor's local buffer) and optionally 32-bit ({@code _S}
 * suffix: the operand is the 4 bytes at the target address, float for the {@code FP} operations). The encoding is
 * this emulator's: {@code base | FETCH | SHORT}.
 * <p>
 * Semantics ({@code old} is the target value, {@code op1}/{@code op2} the descriptor's operands):
 * AND/OR/XOR/IADD/IMIN/IMAX: signed two's complement with op1; SWAP: {@code new = op1};
 * CSWAP: {@code new = old == op1 ? op2 : old}; AX: {@code new = (old & op1) ^ op2};
 * FPMIN/FPMAX/FPADD: IEEE double (float for {@code _S}) with op1's bits.
 * <p>
 * Threading: constants and pure functions, thread-safe.
 */
public final class AmoCmd
{
    /** Bitwise and. */
    public static final int AND = 1;
    /** Bitwise or. */
    public static final int OR = 2;
    /** Bitwise xor. */
    public static final int XOR = 3;
    /** Swap: the new value is op1. */
    public static final int SWAP = 4;
    /** And-xor: {@code (old & op1) ^ op2}. */
    public static final int AX = 5;
    /** Compare-swap: op1 compare, op2 swap. */
    public static final int CSWAP = 6;
    /** Signed minimum. */
    public static final int IMIN = 7;
    /** Signed maximum. */
    public static final int IMAX = 8;
    /** Integer add. */
    public static final int IADD = 9;
    /** Floating-point minimum. */
    public static final int FPMIN = 10;
    /** Floating-point maximum. */
    public static final int FPMAX = 11;
    /** Floating-point add. */
    public static final int FPADD = 12;
    /** Flag: fetching (GET semantics), the old value is returned. */
    public static final int FETCH = 0x40;
    /** Flag: 32-bit operand ({@code _S}). */
    public static final int SHORT = 0x100;

    /** {@code GNI_FMA_ATOMIC2_FAX}: fetching and-xor, the form the provider maps MSWAP onto. */
    public static final int FAX = AX | FETCH;
    /** {@code GNI_FMA_ATOMIC2_FAX_S}. */
    public static final int FAX_S = AX | FETCH | SHORT;
    /** {@code GNI_FMA_ATOMIC2_FCSWAP}. */
    public static final int FCSWAP = CSWAP | FETCH;
    /** {@code GNI_FMA_ATOMIC2_FIADD}. */
    public static final int FIADD = IADD | FETCH;

    private AmoCmd()
    {
    }

    /**
     * @param cmd a command.
     * @return true when {@code cmd} names a known base operation with only known flags.
     */
    public static boolean valid(final int cmd)
    {
        final int base = cmd & 0x3F;
        return base >= AND && base <= FPADD && 0 == (cmd & ~(0x3F | FETCH | SHORT));
    }

    /**
     * @param cmd a command.
     * @return the operand size in bytes: 4 for {@code _S} commands, else 8.
     */
    public static int size(final int cmd)
    {
        return 0 != (cmd & SHORT) ? 4 : 8;
    }

    /**
     * @param cmd a command.
     * @return true when the command returns the old value.
     */
    public static boolean fetching(final int cmd)
    {
        return 0 != (cmd & FETCH);
    }

    /**
     * The new target value. For {@code _S} commands only the low 32 bits of the arguments and result count.
     *
     * @param cmd a valid command.
     * @param old the target value before.
     * @param op1 the first operand.
     * @param op2 the second operand.
     * @return the target value after.
     */
    public static long apply(final int cmd, final long old, final long op1, final long op2)
    {
        final boolean isShort = 0 != (cmd & SHORT);
        switch (cmd & 0x3F)
        {
            case AND:
                return old & op1;
            case OR:
                return old | op1;
            case XOR:
                return old ^ op1;
            case SWAP:
                return op1;
            case AX:
                return (old & op1) ^ op2;
            case CSWAP:
                return isShort ? ((int) old == (int) op1 ? op2 : old) : (old == op1 ? op2 : old);
            case IMIN:
                return isShort ? Math.min((int) old, (int) op1) : Math.min(old, op1);
            case IMAX:
                return isShort ? Math.max((int) old, (int) op1) : Math.max(old, op1);
            case IADD:
                return old + op1;
            case FPMIN:
                return isShort ? floatBits(Math.min(asFloat(old), asFloat(op1))) :
                    doubleBits(Math.min(asDouble(old), asDouble(op1)));
            case FPMAX:
                return isShort ? floatBits(Math.max(asFloat(old), asFloat(op1))) :
                    doubleBits(Math.max(asDouble(old), asDouble(op1)));
            case FPADD:
                return isShort ? floatBits(asFloat(old) + asFloat(op1)) : doubleBits(asDouble(old) + asDouble(op1));
            default:
                throw new IllegalArgumentException("AMO command " + cmd);
        }
    }

    private static float asFloat(final long bits)
    {
        return Float.intBitsToFloat((int) bits);
    }

    private static long floatBits(final float value)
    {
        return Float.floatToRawIntBits(value) & 0xFFFF_FFFFL;
    }

    private static double asDouble(final long bits)
    {
        return Double.longBitsToDouble(bits);
    }

    private static long doubleBits(final double value)
    {
        return Double.doubleToRawLongBits(value);
    }
}
