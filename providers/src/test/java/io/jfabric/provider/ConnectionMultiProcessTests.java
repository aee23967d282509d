package io.jfabric.provider;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.PassiveEndpoint;
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
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code FI_EP_MSG} connection management between real processes ({@link CmChild}) over a frame transport:
 * connection data both ways (fabtests' {@code cm_data}), a reject with data, shutdown on both sides, a peer killed
 * with {@code kill -9} while connected, and a connect to a listener that was killed. Each provider's subclass says
 * how its children find the parent (options) and prepares its environment.
 * <p>
 * Threading: test thread, plus one reader thread per child.
 */
@Timeout(120)
public abstract class ConnectionMultiProcessTests
{
    private static final long DEADLINE_NS = 60_000_000_000L;

    /**
     * @return the provider's name.
     */
    protected abstract String provider();

    /**
     * @return JVM options of the children ({@code -D...}).
     */
    protected abstract List<String> childOptions();

    private static final class Child implements AutoCloseable
    {
        final Process process;
        final ChildOutput lines;
        final OutputStream stdin;
        String ready;

        Child(final Process process)
        {
            this.process = process;
            this.stdin = process.getOutputStream();
            this.lines = new ChildOutput(process, "cm-child");
        }

        String line() throws InterruptedException
        {
            final String line = lines.poll(60, TimeUnit.SECONDS);
            assertNotNull(line, "the child said nothing within 60 s");
            return line;
        }

        void send(final String command) throws IOException
        {
            stdin.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
        }

        void kill() throws InterruptedException
        {
            process.destroyForcibly();
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the child did not die");
        }

        @Override
        public void close() throws InterruptedException
        {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private Child start(final String role) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.base/java.nio=ALL-UNNAMED"));
        command.addAll(childOptions());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), CmChild.class.getName(), provider(),
            role));
        final Path logs = Paths.get("target", "cm-children");
        Files.createDirectories(logs);
        final Child child = new Child(new ProcessBuilder(command)
            .redirectError(logs.resolve(provider() + "-" + role + "-" + System.nanoTime() + ".log").toFile())
            .start());
        child.ready = child.line();
        if (!child.ready.startsWith("READY"))
        {
            child.close();
            fail("the child did not start: " + child.ready);
        }
        return child;
    }

    private static EqEntry event(final EventQueue eq)
    {
        final EqEntry e = CmChild.event(eq);
        assertNotNull(e, "no event within 30 s");
        return e;
    }

    private static void complete(final CompletionQueue cq, final long context)
    {
        final CompletionEntry e = new CompletionEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (1 != cq.read(e))
        {
            assertTrue(System.nanoTime() - deadline < 0, "no completion");
            Thread.yield();
        }
        assertEquals(context, e.context());
    }

    /**
     * The parent listens, the child connects: an accepted connection with data both ways, a message each way
     * (rendezvous size from the child), then the parent's shutdown ends it on both sides.
     */
    @Test
    void shouldCarryCmDataBothWaysMessagesAndShutdownAcrossProcesses() throws Exception
    {
        final Info info = CmChild.msgInfo(provider());
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            EventQueue eq = fabric.eventQueue(16);
            CompletionQueue cq = domain.completionQueue(64, CqFormat.MSG);
            PassiveEndpoint pep = fabric.passiveEndpoint(info).bind(eq, 0).listen();
            Child child = start("client"))
        {
            child.send("CONNECT " + new String(pep.name(), StandardCharsets.US_ASCII) + " hello-from-the-child");
            final EqEntry connreq = event(eq);
            assertEquals(EventQueue.CONNREQ, connreq.event());
            assertSame(pep, connreq.fid());
            assertArrayEquals("hello-from-the-child".getBytes(StandardCharsets.US_ASCII), connreq.param());
            try (Endpoint server = domain.endpoint(connreq.info()).bind(eq, 0).bind(cq, Flags.TRANSMIT | Flags.RECV)
                .enable())
            {
                server.accept("welcome-from-the-parent".getBytes(StandardCharsets.US_ASCII));
                assertEquals(EventQueue.CONNECTED, event(eq).event());
                assertEquals("CONNECTED welcome-from-the-parent", child.line());

                final int length = 100_000;
                final UnsafeBuffer rx = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
                assertEquals(0, server.recv(rx, 0, length, AddressVector.ADDR_UNSPEC, 1));
                child.send("SENDRECV " + length);
                complete(cq, 1);
                for (int i = 0; i < length; i++)
                {
                    assertEquals((byte) (5 + i * 31), rx.getByte(i), "byte " + i);
                }
                final UnsafeBuffer tx = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
                for (int i = 0; i < 64; i++)
                {
                    tx.putByte(i, (byte) (6 + i * 31));
                }
                assertEquals(0, server.send(tx, 0, 64, 0, 2));
                complete(cq, 2);
                assertEquals("ECHO ok", child.line());

                child.send("WAITSHUTDOWN");
                server.shutdown(0);
                assertEquals(EventQueue.SHUTDOWN, event(eq).event());
                assertEquals("SHUTDOWN again-ok false", child.line(), "the child got SHUTDOWN; a second is no error");
                server.shutdown(0);
                assertFalse(server.connected());
                assertEquals(Errno.ENOTCONN.negated(), server.send(tx, 0, 8, 0, 3));
            }
        }
    }

    /**
     * A reject's data reaches the connecting process with its ECONNREFUSED error event.
     */
    @Test
    void shouldDeliverARejectsDataToTheConnectingProcess() throws Exception
    {
        final Info info = CmChild.msgInfo(provider());
        try (Fabric fabric = Fabric.open(info);
            EventQueue eq = fabric.eventQueue(16);
            PassiveEndpoint pep = fabric.passiveEndpoint(info).bind(eq, 0).listen();
            Child child = start("client"))
        {
            child.send("CONNECT " + new String(pep.name(), StandardCharsets.US_ASCII) + " may-i");
            final EqEntry connreq = event(eq);
            assertArrayEquals("may-i".getBytes(StandardCharsets.US_ASCII), connreq.param());
            pep.reject(connreq.info(), "no-room-here".getBytes(StandardCharsets.US_ASCII));
            assertEquals("REFUSED " + Errno.ECONNREFUSED.value() + " no-room-here", child.line());
        }
    }

    /**
     * The connected peer killed with {@code kill -9}: the survivor's endpoint gets {@code FI_SHUTDOWN} (the
     * transport's peer-down event), within a bounded time, and its posts then fail instead of hanging.
     */
    @Test
    void shouldReportAKilledPeerAsShutdown() throws Exception
    {
        final Info info = CmChild.msgInfo(provider());
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            EventQueue eq = fabric.eventQueue(16);
            CompletionQueue cq = domain.completionQueue(64, CqFormat.MSG);
            PassiveEndpoint pep = fabric.passiveEndpoint(info).bind(eq, 0).listen();
            Child child = start("client"))
        {
            child.send("CONNECT " + new String(pep.name(), StandardCharsets.US_ASCII) + " -");
            final EqEntry connreq = event(eq);
            try (Endpoint server = domain.endpoint(connreq.info()).bind(eq, 0).bind(cq, Flags.TRANSMIT | Flags.RECV)
                .enable())
            {
                server.accept(null);
                assertEquals(EventQueue.CONNECTED, event(eq).event());
                assertEquals("CONNECTED -", child.line());
                final UnsafeBuffer rx = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
                // A send to the peer keeps the transport watching it (liveness of peers in use).
                assertEquals(0, server.send(rx, 0, 8, 0, 1));
                final long killed = System.nanoTime();
                child.kill();
                final EqEntry down = event(eq);
                final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                assertEquals(EventQueue.SHUTDOWN, down.event(), "event " + down.event() + " err " + down.err());
                assertSame(server, down.fid());
                assertFalse(server.connected());
                assertEquals(Errno.ENOTCONN.negated(), server.send(rx, 0, 8, 0, 2));
                System.out.println(provider() + ": kill -9 of the connected peer seen as FI_SHUTDOWN after " +
                    detectedMs + " ms");
            }
        }
    }

    /**
     * A connect to a listener that was killed: {@code ECONNREFUSED} (thrown or as an error event), never a hang.
     */
    @Test
    void shouldRefuseAConnectToAKilledListener() throws Exception
    {
        final Info info = CmChild.msgInfo(provider());
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            EventQueue eq = fabric.eventQueue(16);
            Child listener = start("listen");
            Endpoint client = domain.endpoint(info).bind(eq, 0).enable())
        {
            final String name = listener.ready.substring("READY ".length());
            listener.kill();
            final long started = System.nanoTime();
            try
            {
                client.connect(name.getBytes(StandardCharsets.US_ASCII), null);
            }
            catch (final FabricException ex)
            {
                assertEquals(Errno.ECONNREFUSED, ex.errno());
                return;
            }
            final EqEntry refused = event(eq);
            assertEquals(Errno.ECONNREFUSED.value(), refused.err());
            assertSame(client, refused.fid());
            assertFalse(client.connected());
            System.out.println(provider() + ": connect to a killed listener refused after " +
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
        }
    }
}
