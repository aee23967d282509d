package io.jfabric.cli;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;

/**
 * The child JVM of {@link StatCommandTest}: opens an shm domain (MANUAL progress) with one endpoint, records two
 * distinct errors through the domain's error handler (the first three times), prints {@code FILE <counters file>},
 * then runs a tagged send loop to itself (a send and its receive per iteration, a 50 us pause every 256) until a line
 * or the end of stdin, closes everything and prints {@code CLOSED}. Started with {@code -Djfabric.counters.dir} and
 * {@code -Djfabric.shm.dir} of the test's temporary directory.
 */
public final class StatChild
{
    /** Message of the error recorded three times. */
    static final String ERROR_A = "stat test error A";
    /** Message of the error recorded once. */
    static final String ERROR_B = "stat test error B";

    private static volatile boolean stop;

    private StatChild()
    {
    }

    /**
     * @param args none.
     * @throws Exception on any failure (the test sees the exit status and stderr).
     */
    public static void main(final String[] args) throws Exception
    {
        final Info hints = Info.builder()
            .caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName("shm").build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build())
            .build();
        final Info info = Fabric.getInfo(hints).get(0);
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "backoff");
            AddressVector av = domain.addressVector(AvType.TABLE, 4);
            CompletionQueue cq = domain.completionQueue(1024, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            for (int i = 0; i < 3; i++)
            {
                // the same call site three times: one distinct error, three observations
                domain.counters().onError(new IllegalStateException(ERROR_A));
            }
            domain.counters().onError(new IllegalArgumentException(ERROR_B));
            final Thread stdin = new Thread(() ->
            {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
                {
                    in.readLine();
                }
                catch (final Exception ignore)
                {
                    // the parent went away
                }
                stop = true;
            }, "stdin");
            stdin.setDaemon(true);
            stdin.start();
            System.out.println("FILE " + domain.counters().file().path());
            System.out.flush();

            final long self = av.insert(ep.name());
            final UnsafeBuffer tx = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            final UnsafeBuffer rx = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            final CompletionEntry entry = new CompletionEntry();
            long iterations = 0;
            while (!stop)
            {
                while (ep.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 7, 0, 1L) == -Errno.EAGAIN.value())
                {
                    domain.progress();
                }
                while (ep.tsend(tx, 0, 64, self, 7, 2L) == -Errno.EAGAIN.value())
                {
                    domain.progress();
                }
                int completions = 0;
                while (completions < 2 && !stop)
                {
                    final int n = cq.read(entry);
                    if (1 == n)
                    {
                        completions++;
                    }
                    else if (n < 0 && n != -Errno.EAGAIN.value())
                    {
                        throw new IllegalStateException("cq read failed: " + n);
                    }
                }
                if (0 == (++iterations & 255))
                {
                    // a send loop, not a benchmark: leave the shared cores to the rest of the build
                    LockSupport.parkNanos(50_000);
                }
            }
        }
        System.out.println("CLOSED");
        System.out.flush();
    }
}
