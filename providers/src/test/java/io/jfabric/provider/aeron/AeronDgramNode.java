package io.jfabric.provider.aeron;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.DomainAttr;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.EpAttr;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Progress;
import io.jfabric.Version;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM of {@link AeronLossNamespaceTest}'s datagram variant: one aeron fabric with its own driver, a DGRAM
 * endpoint (AUTO progress) listening on {@code -Dnode.host}/{@code -Dnode.port}. Prints {@code READY <name>}, then
 * takes commands on stdin:
 * <ul>
 *     <li>{@code PEER <name>}: insert an address ({@code INSERTED <fi_addr>}).</li>
 *     <li>{@code SEND <fi_addr> <sender> <count>}: that many 8-byte tagged datagrams, the tag
 *     {@code sender << 32 | sequence} and the payload the sequence, each retried while it answers {@code EAGAIN}
 *     ({@code SENT <count> <errors>}, errors being error completions), bounded by a deadline.</li>
 *     <li>{@code RECEIVE <quiet ms>}: take datagrams until none came for that long after the first (or 60 s passed
 *     with none), checking per sender that each sequence is above the last ({@code RECEIVED <from 0> <from 1>
 *     <out of order or twice> <error completions>}).</li>
 * </ul>
 */
public final class AeronDgramNode
{
    private static final int POSTED = 512;
    private static final int SENDERS = 2;
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(60);

    private AeronDgramNode()
    {
    }

    /**
     * @param args none (system properties {@code node.host}, {@code node.port}).
     * @throws Exception on a failure of the set-up.
     */
    public static void main(final String[] args) throws Exception
    {
        final PrintStream out = new PrintStream(System.out, true, StandardCharsets.US_ASCII);
        final Info hints = Info.builder().caps(Flags.TAGGED)
            .epAttr(EpAttr.builder().type(EndpointType.DGRAM).build())
            .fabricAttr(FabricAttr.builder().provName(AeronProvider.NAME).build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build()).build();
        final Info info = Fabric.getInfo(Version.CURRENT, System.getProperty("node.host"),
            System.getProperty("node.port"), Flags.SOURCE, hints).get(0);
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 8);
            CompletionQueue cq = domain.completionQueue(2048, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            out.println("READY " + new String(ep.name(), StandardCharsets.US_ASCII));
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            String line;
            while (null != (line = in.readLine()) && !"EXIT".equals(line.trim()))
            {
                final String[] words = line.trim().split(" ");
                switch (words[0])
                {
                    case "PEER" -> out.println("INSERTED " + av.insert(words[1].getBytes(StandardCharsets.US_ASCII)));
                    case "SEND" -> out.println(send(ep, cq, Long.parseLong(words[1]), Integer.parseInt(words[2]),
                        Integer.parseInt(words[3])));
                    case "RECEIVE" -> out.println(receive(ep, cq, Long.parseLong(words[1])));
                    default -> out.println("FAIL unknown command " + line);
                }
            }
        }
    }

    private static String send(
        final Endpoint ep, final CompletionQueue cq, final long dest, final int sender, final int count)
    {
        final UnsafeBuffer value = AeronNode.direct(8);
        final CompletionEntry entry = new CompletionEntry();
        final CompletionErrorEntry error = new CompletionErrorEntry();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        int sent = 0;
        int errors = 0;
        while (sent < count)
        {
            value.putLong(0, sent);
            final int rc = ep.tinject(value, 0, 8, dest, ((long) sender << 32) | sent);
            if (0 == rc)
            {
                sent++;
            }
            else if (Errno.EAGAIN.negated() != rc)
            {
                return "FAIL tinject " + rc + " after " + sent;
            }
            else if (System.nanoTime() - deadline > 0)
            {
                return "FAIL stalled after " + sent + " of " + count;
            }
            else
            {
                Thread.yield();
            }
            if (Errno.EAVAIL.negated() == cq.read(entry))
            {
                errors++;
                cq.readErr(error);
            }
        }
        return "SENT " + sent + " " + errors;
    }

    private static String receive(final Endpoint ep, final CompletionQueue cq, final long quietMs)
    {
        final UnsafeBuffer[] slots = new UnsafeBuffer[POSTED];
        for (int i = 0; i < POSTED; i++)
        {
            slots[i] = AeronNode.direct(8);
            must(ep.trecv(slots[i], 0, 8, AddressVector.ADDR_UNSPEC, 0, -1L, i), "trecv");
        }
        final long[] last = new long[SENDERS];
        final long[] received = new long[SENDERS];
        Arrays.fill(last, -1);
        long disorder = 0;
        long errors = 0;
        final CompletionEntry entry = new CompletionEntry();
        final CompletionErrorEntry error = new CompletionErrorEntry();
        final long startNs = System.nanoTime();
        long lastArrivalNs = 0;
        final long quietNs = TimeUnit.MILLISECONDS.toNanos(quietMs);
        while (0 == lastArrivalNs ? System.nanoTime() - startNs < DEADLINE_NS :
            System.nanoTime() - lastArrivalNs < quietNs)
        {
            final int n = cq.read(entry);
            if (1 == n)
            {
                final int slot = (int) entry.context();
                final int sender = (int) (entry.tag() >>> 32);
                final long seq = slots[slot].getLong(0);
                if (sender < 0 || sender >= SENDERS || seq != (entry.tag() & 0xFFFF_FFFFL) || seq <= last[sender])
                {
                    disorder++;
                }
                else
                {
                    last[sender] = seq;
                    received[sender]++;
                }
                lastArrivalNs = System.nanoTime();
                must(ep.trecv(slots[slot], 0, 8, AddressVector.ADDR_UNSPEC, 0, -1L, slot), "trecv");
            }
            else if (Errno.EAVAIL.negated() == n)
            {
                errors++;
                cq.readErr(error);
            }
            else
            {
                Thread.yield();
            }
        }
        return "RECEIVED " + received[0] + " " + received[1] + " " + disorder + " " + errors;
    }

    private static void must(final int rc, final String what)
    {
        if (0 != rc)
        {
            throw new IllegalStateException(what + " answered " + rc + " (" + Errno.strerror(rc) + ")");
        }
    }
}
