package io.jfabric.bench.runtime;

import io.jfabric.DomainAttr;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.loadtest.PingpongEndpoint;

/**
 * Two inproc domains with one tagged endpoint each, driven from one application thread: one {@link #roundTrip()}
 * is a send A→B, B's receive completion, a send B→A, A's receive completion. With MANUAL progress the thread also
 * runs both domain agents (the waiting side assists the other's duty cycle); with AUTO each domain has its agent
 * thread (idle strategy by name).
 * <p>
 * Built on the same {@link PingpongEndpoint} as {@code jfabric pingpong} (which runs the two sides on two threads
 * instead): sends below the inject size go by {@code fi_tinject}, larger ones by {@code fi_tsend} with selective
 * completion, receives are posted before their message is sent.
 * <p>
 * Threading: one application thread.
 */
public final class InprocPingPong implements AutoCloseable
{
    private static final long TIMEOUT_MS = 60_000;

    private final PingpongEndpoint a;
    private final PingpongEndpoint b;
    private final int size;

    /**
     * Open the pair.
     *
     * @param progress     MANUAL or AUTO.
     * @param idleStrategy for AUTO: backoff, spin, yield, sleep (the application thread always busy-polls).
     * @param size         message size in bytes.
     */
    public InprocPingPong(final Progress progress, final String idleStrategy, final int size)
    {
        final Info hints = Info.builder()
            .caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName("inproc").build())
            .domainAttr(DomainAttr.builder().dataProgress(progress).build())
            .build();
        final Info info = Fabric.getInfo(hints).get(0);
        this.size = size;
        a = PingpongEndpoint.open(info, true, size, idleStrategy, "spin", TIMEOUT_MS);
        b = PingpongEndpoint.open(info, true, size, idleStrategy, "spin", TIMEOUT_MS);
        a.peer(b.name());
        b.peer(a.name());
        a.assist(b);
        b.assist(a);
    }

    /**
     * One tagged round trip (sends complete silently, so only receives produce completions).
     *
     * @return the first byte of the echoed payload (consumed by the caller).
     */
    public long roundTrip()
    {
        final int n = size;
        check(b.postRecv(n));
        check(a.send(n));
        check(b.awaitRecv(n));
        check(a.postRecv(n));
        check(b.send(n));
        check(a.awaitRecv(n));
        return n > 0 ? a.rxBuffer().getByte(0) : 0;
    }

    private static void check(final int result)
    {
        if (0 != result)
        {
            throw new IllegalStateException("ping-pong step failed: " + result);
        }
    }

    /**
     * Close everything (stops AUTO agent threads).
     */
    @Override
    public void close()
    {
        a.close();
        b.close();
    }
}
