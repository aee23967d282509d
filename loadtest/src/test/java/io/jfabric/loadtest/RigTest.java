package io.jfabric.loadtest;

import io.jfabric.Info;
import io.jfabric.Progress;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rigs over real pairs: every operation class of a jfabric pair completes closed-loop; a fixed-rate run starts
 * its rate per iteration and records one value per operation from its schedule; throughput keeps a window in
 * flight; the Aeron IPC pair echoes and removes its driver directory on close.
 */
@Timeout(60)
class RigTest
{
    private static final long TIMEOUT_MS = 20_000;

    private static Info info(final OpClass op)
    {
        return FabricInfos.resolve("inproc", op.caps(), Progress.MANUAL);
    }

    @ParameterizedTest
    @EnumSource(OpClass.class)
    void shouldTimeEveryOperationOfEachClassClosedLoop(final OpClass op)
    {
        try (FabricTarget target = FabricTarget.open(info(op), op, 64, 1, "yield", TIMEOUT_MS))
        {
            final RigResult r = new ClosedLoopRig(new YieldingIdleStrategy(), TIMEOUT_MS).latency(target, 100, 500);
            assertFalse(r.stopped(), "status " + r.status());
            assertEquals(500, r.completed());
            assertEquals(500, r.histogram().getTotalCount());
            assertTrue(r.histogram().getMinValue() > 0);
            assertEquals(OpClass.ATOMIC == op ? 8 : 64, r.size());
        }
    }

    @Test
    void shouldStartTheRateInEveryIterationAndRecordFromTheSchedule()
    {
        final OpClass op = OpClass.TAGGED;
        final List<Long> sent = new ArrayList<>();
        try (FabricTarget target = FabricTarget.open(info(op), op, 32, 64, "yield", TIMEOUT_MS))
        {
            final RigResult r = new FixedRateRig(new YieldingIdleStrategy(), TIMEOUT_MS).run(target, 2_000, 1, 2,
                (index, warmup, interval, startedNs, count) -> sent.add(count));
            assertFalse(r.stopped(), "status " + r.status());
            assertEquals(List.of(2_000L, 2_000L, 2_000L), sent);
            assertEquals(List.of(2_000L, 2_000L), r.iterationCounts());
            assertEquals(4_000, r.completed());
            assertEquals(4_000, r.histogram().getTotalCount());
            assertEquals(List.of(), r.warnings());
            assertEquals(2_000, r.targetRate());
        }
    }

    @Test
    void shouldWarnWhenTheRateIsNotReached()
    {
        final OpClass op = OpClass.TAGGED;
        try (FabricTarget target = FabricTarget.open(info(op), op, 32, 1, "yield", TIMEOUT_MS))
        {
            // one in flight and a rate no round trip here can reach (1 ns apart)
            final RigResult r = new FixedRateRig(new YieldingIdleStrategy(), TIMEOUT_MS).run(target, 1_000_000_000L,
                0, 1, null);
            assertFalse(r.stopped(), "status " + r.status());
            assertEquals(1, r.warnings().size(), r.warnings().toString());
            assertTrue(r.warnings().get(0).contains("not reached"), r.warnings().get(0));
            assertEquals(r.started(), r.completed());
            assertTrue(r.started() < 1_000_000_000L);
        }
    }

    @Test
    void shouldKeepTheWindowInFlightForThroughput()
    {
        final OpClass op = OpClass.RMA_WRITE;
        try (FabricTarget target = FabricTarget.open(info(op), op, 4096, 16, "yield", TIMEOUT_MS))
        {
            final RigResult r = new ClosedLoopRig(new YieldingIdleStrategy(), TIMEOUT_MS).throughput(target, 16,
                50_000_000L, 200_000_000L);
            assertFalse(r.stopped(), "status " + r.status());
            assertEquals(16, r.window());
            assertTrue(r.completed() > 0);
            assertEquals(r.started(), r.completed());
            assertEquals(r.completed(), r.histogram().getTotalCount());
            assertEquals(r.opsPerSecond() * 4096 / 1e6, r.megabytesPerSecond(), 1e-6);
        }
    }

    @Test
    void shouldEchoThroughAeronIpcAndDeleteTheDriverDirectory(@TempDir final Path tmp)
    {
        final File dir = tmp.resolve("aeron").toFile();
        try (AeronTarget target = AeronTarget.open(AeronTarget.Kind.IPC, 64, 8, "yield", dir, TIMEOUT_MS))
        {
            assertTrue(dir.isDirectory());
            final RigResult r = new ClosedLoopRig(new YieldingIdleStrategy(), TIMEOUT_MS).latency(target, 100, 1000);
            assertFalse(r.stopped(), "status " + r.status());
            assertEquals(1000, r.histogram().getTotalCount());
            assertEquals("aeron ipc", r.label());
        }
        assertFalse(Files.exists(dir.toPath()), "driver directory left behind");
    }
}
