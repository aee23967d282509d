package io.jfabric.provider;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code FI_EP_DGRAM} between real processes ({@link DgramChild}) over a frame transport: datagrams of every size up
 * to {@code max_msg_size} go to a child that echoes them, data verified (a datagram a lossy transport lost is sent
 * again after a bounded wait, counted); then the child is killed with {@code kill -9} and this side keeps sending:
 * every send completes (silently lost while the transport has not yet found the peer dead, then with an error
 * completion), none hangs, and the error comes within the deadline. Each provider's subclass says how its children
 * find the parent (options).
 * <p>
 * Threading: test thread, plus one reader thread for the child.
 */
@Timeout(120)
public abstract class DgramMultiProcessTests
{
    private static final long DEADLINE_NS = 60_000_000_000L;
    private static final long RESEND_NS = 500_000_000L;
    private static final int ROUNDS = 200;

    /**
     * @return the provider's name.
     */
    protected abstract String provider();

    /**
     * @return JVM options of the child ({@code -D...}).
     */
    protected abstract List<String> childOptions();

    @Test
    void shouldEchoDatagramsAcrossProcessesAndNeverHangOnceThePeerIsKilled() throws Exception
    {
        final Info info = DgramChild.dgramInfo(provider());
        final int max = (int) info.epAttr().maxMsgSize();
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 4);
            CompletionQueue cq = domain.completionQueue(1024, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final Process process = start();
            try
            {
                final ChildOutput lines = new ChildOutput(process, "dgram-child");
                final String ready = line(lines);
                assertTrue(ready.startsWith("READY "), ready);
                final long child = av.insert(HexFormat.of().parseHex(ready.substring(6)));
                final OutputStream stdin = process.getOutputStream();
                stdin.write(("PEER " + HexFormat.of().formatHex(ep.name()) + "\n").getBytes(StandardCharsets.US_ASCII));
                stdin.flush();
                assertEquals("PEER ok", line(lines));

                final UnsafeBuffer tx = new UnsafeBuffer(ByteBuffer.allocateDirect(max));
                final UnsafeBuffer rx = new UnsafeBuffer(ByteBuffer.allocateDirect(max));
                final CompletionEntry entry = new CompletionEntry();
                int resent = 0;
                for (int round = 0; round < ROUNDS; round++)
                {
                    final int length = 0 == round ? 0 : (1 == round ? max : (round * 997) % (max + 1));
                    for (int i = 0; i < length; i++)
                    {
                        tx.putByte(i, (byte) (round + i * 13));
                    }
                    assertEquals(0, ep.trecv(rx, 0, max, AddressVector.ADDR_UNSPEC, round, 0, 1_000_000 + round));
                    final long deadline = System.nanoTime() + DEADLINE_NS;
                    boolean echoed = false;
                    while (!echoed)
                    {
                        assertEquals(0, ep.tsend(tx, 0, length, child, round, round));
                        boolean sent = false;
                        final long resendAt = System.nanoTime() + RESEND_NS;
                        while (!echoed && (!sent || System.nanoTime() - resendAt < 0))
                        {
                            final int n = cq.read(entry);
                            if (1 == n)
                            {
                                if ((entry.flags() & Flags.SEND) != 0)
                                {
                                    // This round's send, or a late completion of an earlier round's resend (the
                                    // round ended on the echo of its first copy, before the second completed).
                                    assertTrue(entry.context() >= 0 && entry.context() <= round,
                                        "send completion " + entry.context() + " in round " + round);
                                    sent |= round == entry.context();
                                }
                                else
                                {
                                    assertEquals(1_000_000 + round, entry.context());
                                    assertEquals(length, entry.len(), "round " + round);
                                    for (int i = 0; i < length; i++)
                                    {
                                        assertEquals((byte) (round + i * 13), rx.getByte(i), "round " + round);
                                    }
                                    echoed = true;
                                }
                            }
                            assertTrue(Errno.EAVAIL.negated() != n, "an error completion while the child lives");
                            assertTrue(System.nanoTime() - deadline < 0, "no echo of round " + round);
                            Thread.yield();
                        }
                        if (!echoed)
                        {
                            resent++;
                        }
                    }
                    // A resent datagram may be echoed twice: the late echo has this round's tag, which no later
                    // receive takes (each round receives its own tag), so it stays unexpected and harms nothing.
                }
                System.out.println(provider() + " dgram across processes: " + ROUNDS + " echoes verified, " + resent +
                    " datagrams sent again after a loss");

                process.destroyForcibly();
                assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the child did not die");
                final long killedNs = System.nanoTime();
                final CompletionErrorEntry error = new CompletionErrorEntry();
                int completed = 0;
                int posted = 0;
                int errno = 0;
                while (0 == errno)
                {
                    assertTrue(System.nanoTime() - killedNs < DEADLINE_NS, "no error for the dead peer: " + posted +
                        " sends posted, " + completed + " completed");
                    if (posted - completed < 16)
                    {
                        final int rc = ep.tsend(tx, 0, 8, child, 7, 5_000_000 + posted);
                        if (0 == rc)
                        {
                            posted++;
                        }
                        else if (Errno.EAGAIN.negated() != rc)
                        {
                            // Refused at post: the endpoint already knows the peer is gone.
                            errno = -rc;
                        }
                    }
                    final int n = cq.read(entry);
                    if (1 == n)
                    {
                        completed++;
                    }
                    else if (Errno.EAVAIL.negated() == n)
                    {
                        assertEquals(1, cq.readErr(error));
                        errno = error.errno().value();
                        completed++;
                    }
                    Thread.sleep(1);
                }
                final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);
                // A dead peer's operations fail with EIO (its lanes or streams are gone) or EHOSTUNREACH (no route).
                assertTrue(Errno.EIO.value() == errno || Errno.EHOSTUNREACH.value() == errno,
                    "EIO or EHOSTUNREACH for a killed peer, got errno " + errno);
                System.out.println(provider() + " dgram: the killed peer's datagrams failed with errno " + errno +
                    " after " + detectedMs + " ms (" + completed + " of " + posted + " sends completed before)");
                // Nothing else waits on the dead peer: every send posted so far completes.
                final long deadline = System.nanoTime() + DEADLINE_NS;
                while (completed < posted)
                {
                    final int n = cq.read(entry);
                    if (1 == n)
                    {
                        completed++;
                    }
                    else if (Errno.EAVAIL.negated() == n)
                    {
                        assertEquals(1, cq.readErr(error));
                        completed++;
                    }
                    assertTrue(System.nanoTime() - deadline < 0, completed + " of " + posted + " sends completed");
                    Thread.yield();
                }
            }
            finally
            {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private Process start() throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.base/java.nio=ALL-UNNAMED"));
        command.addAll(childOptions());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), DgramChild.class.getName(), provider()));
        final Path logs = Paths.get("target", "dgram-children");
        Files.createDirectories(logs);
        return new ProcessBuilder(command)
            .redirectError(logs.resolve(provider() + "-" + System.nanoTime() + ".log").toFile())
            .start();
    }

    private static String line(final ChildOutput lines) throws InterruptedException
    {
        final String line = lines.poll(60, TimeUnit.SECONDS);
        assertNotNull(line, "the child said nothing within 60 s");
        if (line.startsWith("ERROR") || "EOF".equals(line))
        {
            fail("the child failed: " + line);
        }
        return line;
    }
}
