package io.jfabric.aries;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.jfabric.aries.AriesFixture.register;
import static org.junit.jupiter.api.Assertions.assertEquals;

class AmoTest
{
    private static long amo(
        final AriesPair p, final int cmd, final long initial, final long op1, final long op2, final long[] result)
    {
        final UnsafeBuffer remote = AriesFixture.memory(4096);
        final UnsafeBuffer local = AriesFixture.memory(4096);
        final MemHandle rh = register(p.nicB, remote, 0);
        final MemHandle lh = register(p.nicA, local, 0);
        remote.putLong(64, 0x5555_5555_5555_5555L);
        if (4 == AmoCmd.size(cmd))
        {
            remote.putInt(64, (int) initial);
        }
        else
        {
            remote.putLong(64, initial);
        }
        local.putLong(8, 0xDEAD_DEAD_DEAD_DEADL);
        final PostDescriptor d = new PostDescriptor();
        d.type = TransactionKind.AMO;
        d.amoCmd = cmd;
        d.remoteAddr = remote.addressOffset() + 64;
        d.remoteMemHandle.set(rh);
        d.localAddr = local.addressOffset() + 8;
        d.localMemHandle.set(lh);
        d.firstOperand = op1;
        d.secondOperand = op2;
        assertEquals(GniRc.SUCCESS, p.epA.postFma(d));
        assertEquals(GniRc.SUCCESS, p.fixture.nextEvent(p.cqA));
        result[0] = local.getLong(8);
        if (4 == AmoCmd.size(cmd))
        {
            // The 32-bit form touches only its 4 bytes.
            assertEquals(0x5555_5555, remote.getInt(68));
            return remote.getInt(64) & 0xFFFF_FFFFL;
        }
        return remote.getLong(64);
    }

    @Test
    void shouldExecuteEvery64BitCommand()
    {
        try (AriesPair p = new AriesPair())
        {
            final long[] r = new long[1];
            assertEquals(0b1000, amo(p, AmoCmd.AND, 0b1100, 0b1010, 0, r));
            assertEquals(0b1110, amo(p, AmoCmd.OR, 0b1100, 0b1010, 0, r));
            assertEquals(0b0110, amo(p, AmoCmd.XOR, 0b1100, 0b1010, 0, r));
            assertEquals(0xDEAD_DEAD_DEAD_DEADL, r[0]);
            assertEquals(42, amo(p, AmoCmd.SWAP, 7, 42, 0, r));
            assertEquals((0xF0F0L & 0xFF00L) ^ 0x000FL, amo(p, AmoCmd.AX, 0xF0F0, 0xFF00, 0x000F, r));
            assertEquals(99, amo(p, AmoCmd.CSWAP, 5, 5, 99, r));
            assertEquals(5, amo(p, AmoCmd.CSWAP, 5, 6, 99, r));
            assertEquals(-3, amo(p, AmoCmd.IMIN, 4, -3, 0, r));
            assertEquals(4, amo(p, AmoCmd.IMAX, 4, -3, 0, r));
            assertEquals(Long.MIN_VALUE, amo(p, AmoCmd.IADD, Long.MAX_VALUE, 1, 0, r));
            assertEquals(Double.doubleToRawLongBits(3.75), amo(p, AmoCmd.FPADD, Double.doubleToRawLongBits(1.5),
                Double.doubleToRawLongBits(2.25), 0, r));
            assertEquals(Double.doubleToRawLongBits(1.5), amo(p, AmoCmd.FPMIN, Double.doubleToRawLongBits(1.5),
                Double.doubleToRawLongBits(2.25), 0, r));
            assertEquals(Double.doubleToRawLongBits(2.25), amo(p, AmoCmd.FPMAX, Double.doubleToRawLongBits(1.5),
                Double.doubleToRawLongBits(2.25), 0, r));
        }
    }

    @Test
    void shouldReturnOldValueForFetchingCommands()
    {
        try (AriesPair p = new AriesPair())
        {
            final long[] r = new long[1];
            assertEquals(15, amo(p, AmoCmd.FIADD, 10, 5, 0, r));
            assertEquals(10, r[0]);
            assertEquals(99, amo(p, AmoCmd.FCSWAP, 5, 5, 99, r));
            assertEquals(5, r[0]);
            // MSWAP as the provider maps it: FAX(~mask, v & mask).
            final long mask = 0x00FF_00FFL;
            assertEquals((0x1234_5678L & ~mask) | (0xAAAA_AAAAL & mask),
                amo(p, AmoCmd.FAX, 0x1234_5678L, ~mask, 0xAAAA_AAAAL & mask, r));
            assertEquals(0x1234_5678L, r[0]);
            // FI_ATOMIC_READ as FAND(~0).
            assertEquals(0x0BAD_F00DL, amo(p, AmoCmd.AND | AmoCmd.FETCH, 0x0BAD_F00DL, ~0L, 0, r));
            assertEquals(0x0BAD_F00DL, r[0]);
        }
    }

    @Test
    void shouldExecute32BitForms()
    {
        try (AriesPair p = new AriesPair())
        {
            final long[] r = new long[1];
            assertEquals(0x8000_0000L, amo(p, AmoCmd.IADD | AmoCmd.SHORT, 0x7FFF_FFFF, 1, 0, r));
            assertEquals(0xFFFF_FFFDL, amo(p, AmoCmd.IMIN | AmoCmd.SHORT, 4, -3, 0, r));
            assertEquals(9, amo(p, AmoCmd.FCSWAP | AmoCmd.SHORT, 3, 3, 9, r));
            assertEquals(3, (int) r[0]);
            // The fetch writes 4 bytes only.
            assertEquals(0xDEAD_DEADL, r[0] >>> 32);
            assertEquals(Float.floatToRawIntBits(3.5f), (int) amo(p, AmoCmd.FPADD | AmoCmd.SHORT,
                Float.floatToRawIntBits(1.25f), Float.floatToRawIntBits(2.25f), 0, r));
            assertEquals((0xF0F0 & 0xFF00) ^ 0x0F, amo(p, AmoCmd.FAX_S, 0xF0F0, 0xFF00, 0x0F, r));
        }
    }

    @Test
    void shouldRefuseMisalignedAmoAtPost()
    {
        try (AriesPair p = new AriesPair())
        {
            final UnsafeBuffer remote = AriesFixture.memory(4096);
            final MemHandle rh = register(p.nicB, remote, 0);
            final PostDescriptor d = new PostDescriptor();
            d.type = TransactionKind.AMO;
            d.amoCmd = AmoCmd.IADD;
            d.remoteAddr = remote.addressOffset() + 4;
            d.remoteMemHandle.set(rh);
            assertEquals(GniRc.ALIGNMENT_ERROR, p.epA.postFma(d));
            d.amoCmd = AmoCmd.IADD | AmoCmd.SHORT;
            d.remoteAddr = remote.addressOffset() + 2;
            assertEquals(GniRc.ALIGNMENT_ERROR, p.epA.postFma(d));
            d.amoCmd = 0x77;
            assertEquals(GniRc.INVALID_PARAM, p.epA.postFma(d));
            d.amoCmd = AmoCmd.FIADD;
            d.remoteAddr = remote.addressOffset();
            d.localAddr = 0;
            assertEquals(GniRc.INVALID_PARAM, p.epA.postFma(d));
            assertEquals(0, p.epA.outstanding());
        }
    }
}
