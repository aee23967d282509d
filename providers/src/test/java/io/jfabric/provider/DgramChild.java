package io.jfabric.provider;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
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
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * A child process for the multi-process datagram tests, for any provider: {@code DgramChild <provider>} opens a
 * DGRAM endpoint (AUTO progress), prints {@code READY <hex name>}, reads {@code PEER <hex name>} on stdin, inserts
 * it, prints {@code PEER ok} and from then on sends every datagram it receives back to that peer, same tag and
 * bytes (an echo), until it is killed. Any failure prints {@code ERROR ...}. Threading: main thread only.
 */
public final class DgramChild
{
    private static final int POSTED = 64;

    private DgramChild()
    {
    }

    /**
     * The DGRAM info of a provider with automatic progress.
     *
     * @param provider the provider's name.
     * @return the info.
     */
    public static Info dgramInfo(final String provider)
    {
        final Info info = Fabric.getInfo(Info.builder()
            .caps(Flags.MSG | Flags.TAGGED)
            .epAttr(EpAttr.builder().type(EndpointType.DGRAM).build())
            .fabricAttr(FabricAttr.builder().provName(provider).build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build())
            .build()).get(0);
        if (EndpointType.DGRAM != info.epAttr().type())
        {
            throw new IllegalStateException("no FI_EP_DGRAM info for " + provider);
        }
        return info;
    }

    /**
     * @param args the provider.
     * @throws Exception when the process cannot even start.
     */
    public static void main(final String[] args) throws Exception
    {
        final Info info = dgramInfo(args[0]);
        final int max = (int) info.epAttr().maxMsgSize();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "yield");
            AddressVector av = domain.addressVector(AvType.TABLE, 4);
            CompletionQueue cq = domain.completionQueue(1024, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            System.out.println("READY " + HexFormat.of().formatHex(ep.name()));
            System.out.flush();
            final String line = in.readLine();
            if (null == line || !line.startsWith("PEER "))
            {
                System.out.println("ERROR expected PEER, got " + line);
                return;
            }
            final long peer = av.insert(HexFormat.of().parseHex(line.substring(5)));
            final UnsafeBuffer[] rx = new UnsafeBuffer[POSTED];
            final UnsafeBuffer[] tx = new UnsafeBuffer[POSTED];
            for (int i = 0; i < POSTED; i++)
            {
                rx[i] = new UnsafeBuffer(ByteBuffer.allocateDirect(max));
                tx[i] = new UnsafeBuffer(ByteBuffer.allocateDirect(max));
                check(ep.trecv(rx[i], 0, max, AddressVector.ADDR_UNSPEC, 0, -1L, i), "trecv");
            }
            System.out.println("PEER ok");
            System.out.flush();
            final CompletionEntry entry = new CompletionEntry();
            int next = 0;
            while (true)
            {
                if (1 == cq.read(entry))
                {
                    if ((entry.flags() & Flags.RECV) != 0)
                    {
                        final int slot = (int) entry.context();
                        final int length = (int) entry.len();
                        // Sends complete in order; a buffer is reused only POSTED sends later.
                        final UnsafeBuffer out = tx[next++ % POSTED];
                        out.putBytes(0, rx[slot], 0, length);
                        int rc;
                        while (Errno.EAGAIN.negated() == (rc = ep.tsend(out, 0, length, peer, entry.tag(), -1)))
                        {
                            Thread.yield();
                        }
                        check(rc, "tsend");
                        check(ep.trecv(rx[slot], 0, max, AddressVector.ADDR_UNSPEC, 0, -1L, slot), "trecv");
                    }
                }
                else
                {
                    Thread.yield();
                }
            }
        }
    }

    private static void check(final int rc, final String what)
    {
        if (0 != rc)
        {
            System.out.println("ERROR " + what + " " + rc);
            System.out.flush();
            System.exit(1);
        }
    }
}
