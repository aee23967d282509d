package io.jfabric.provider;

import io.jfabric.AddressVector;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.PassiveEndpoint;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A child process for the multi-process connection management tests, for any provider: {@code CmChild <provider>
 * client} connects where it is told, {@code CmChild <provider> listen} opens a listening passive endpoint and does
 * nothing else. It prints one line per step on stdout ({@code READY [name]} first) and takes commands on stdin:
 * <ul>
 *     <li>{@code CONNECT <pep name> <data|->}: prints {@code CONNECTED <data|->}, {@code REFUSED <errno>
 *     <data|->} or {@code THROWN <errno>};</li>
 *     <li>{@code SENDRECV <length>}: sends {@code length} bytes of pattern 5 to the peer and receives 64 bytes of
 *     pattern 6 from it, prints {@code ECHO ok} or {@code ECHO bad ...};</li>
 *     <li>{@code WAITSHUTDOWN}: waits for {@code FI_SHUTDOWN}, shuts down again (not an error), prints
 *     {@code SHUTDOWN again-ok}.</li>
 * </ul>
 * Any failure prints {@code ERROR ...}. Threading: main thread only.
 */
public final class CmChild
{
    private static final long DEADLINE_NS = 30_000_000_000L;

    private CmChild()
    {
    }

    /**
     * The MSG info of a provider with automatic progress.
     *
     * @param provider the provider's name.
     * @return the info.
     */
    public static Info msgInfo(final String provider)
    {
        final Info info = Fabric.getInfo(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED | Flags.RMA)
            .epAttr(EpAttr.builder().type(EndpointType.MSG).build())
            .fabricAttr(FabricAttr.builder().provName(provider).build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build())
            .build()).get(0);
        if (EndpointType.MSG != info.epAttr().type())
        {
            throw new IllegalStateException("no FI_EP_MSG info for " + provider);
        }
        return info;
    }

    /**
     * The next event of an event queue, error events included, within 30 s.
     *
     * @param eq the queue.
     * @return the entry, or null at the deadline.
     */
    public static EqEntry event(final EventQueue eq)
    {
        final EqEntry entry = new EqEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (System.nanoTime() - deadline < 0)
        {
            final int n = eq.read(entry, 0);
            if (1 == n)
            {
                return entry;
            }
            if (Errno.EAVAIL.negated() == n && 1 == eq.readErr(entry))
            {
                return entry;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return null;
    }

    /**
     * Connection data as text for the line protocol.
     *
     * @param param the data or null.
     * @return the text, {@code -} for none.
     */
    public static String text(final byte[] param)
    {
        return null == param ? "-" : new String(param, StandardCharsets.US_ASCII);
    }

    /**
     * The data of a line-protocol word.
     *
     * @param word the word, {@code -} for none.
     * @return the bytes or null.
     */
    public static byte[] data(final String word)
    {
        return "-".equals(word) ? null : word.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @param args provider and role.
     * @throws Exception when the process cannot even start.
     */
    public static void main(final String[] args) throws Exception
    {
        final Info info = msgInfo(args[0]);
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            EventQueue eq = fabric.eventQueue(16);
            CompletionQueue cq = domain.completionQueue(64, CqFormat.MSG))
        {
            if ("listen".equals(args[1]))
            {
                try (PassiveEndpoint pep = fabric.passiveEndpoint(info).bind(eq, 0).listen())
                {
                    System.out.println("READY " + new String(pep.name(), StandardCharsets.US_ASCII));
                    System.out.flush();
                    while (null != in.readLine())
                    {
                        System.out.println("IGNORED");
                        System.out.flush();
                    }
                }
                return;
            }
            try (Endpoint ep = domain.endpoint(info).bind(eq, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
            {
                System.out.println("READY");
                System.out.flush();
                String line;
                while (null != (line = in.readLine()))
                {
                    System.out.println(step(ep, eq, cq, line.split(" ")));
                    System.out.flush();
                }
            }
        }
        catch (final Throwable ex)
        {
            System.out.println("ERROR " + ex);
            System.out.flush();
            throw ex;
        }
    }

    private static String step(final Endpoint ep, final EventQueue eq, final CompletionQueue cq, final String[] word)
    {
        switch (word[0])
        {
            case "CONNECT":
            {
                try
                {
                    ep.connect(word[1].getBytes(StandardCharsets.US_ASCII), data(word[2]));
                }
                catch (final FabricException ex)
                {
                    return "THROWN " + ex.errno().value();
                }
                final EqEntry e = event(eq);
                if (null == e)
                {
                    return "ERROR no event";
                }
                if (0 != e.err())
                {
                    return "REFUSED " + e.err() + " " + text(e.param());
                }
                return EventQueue.CONNECTED == e.event() ? "CONNECTED " + text(e.param()) : "ERROR event " + e.event();
            }
            case "SENDRECV":
            {
                final int length = Integer.parseInt(word[1]);
                final UnsafeBuffer tx = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, length)));
                for (int i = 0; i < length; i++)
                {
                    tx.putByte(i, (byte) (5 + i * 31));
                }
                final UnsafeBuffer rx = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
                if (0 != ep.recv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 1) || 0 != ep.send(tx, 0, length, 0, 2))
                {
                    return "ECHO bad post";
                }
                for (int n = 0; n < 2; n++)
                {
                    final String failed = complete(cq);
                    if (null != failed)
                    {
                        return "ECHO bad " + failed;
                    }
                }
                for (int i = 0; i < 64; i++)
                {
                    if (rx.getByte(i) != (byte) (6 + i * 31))
                    {
                        return "ECHO bad byte " + i;
                    }
                }
                return "ECHO ok";
            }
            case "WAITSHUTDOWN":
            {
                final EqEntry e = event(eq);
                if (null == e || EventQueue.SHUTDOWN != e.event() || 0 != e.err())
                {
                    return "ERROR expected SHUTDOWN, got " + (null == e ? "nothing" : e.event() + "/" + e.err());
                }
                ep.shutdown(0);
                return "SHUTDOWN again-ok " + ep.connected();
            }
            default:
                return "ERROR unknown command " + word[0];
        }
    }

    private static String complete(final CompletionQueue cq)
    {
        final CompletionEntry e = new CompletionEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (System.nanoTime() - deadline < 0)
        {
            final int n = cq.read(e);
            if (1 == n)
            {
                return null;
            }
            if (Errno.EAVAIL.negated() == n)
            {
                final CompletionErrorEntry err = new CompletionErrorEntry();
                cq.readErr(err);
                return "error " + err.errno();
            }
            Thread.yield();
        }
        return "no completion";
    }
}
