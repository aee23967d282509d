package com.example;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionEntry;
import io.jfabric.CompletionErrorEntry;
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

import java.nio.ByteBuffer;

/**
 * The README's first program as a project of its own: an endpoint sends a tagged message to itself and prints what
 * arrived. Run it with {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED} (Agrona needs it).
 */
public final class FirstProgram
{
    private FirstProgram()
    {
    }

    /**
     * Runs the README's program.
     *
     * @param args ignored.
     */
    public static void main(final String[] args)
    {
        // ---- README: first program (README.md shows the text between these markers; a test keeps them equal) ----
        Info hints = Info.builder()
            .caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName("inproc").build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build())
            .build();
        Info info = Fabric.getInfo(hints).get(0);                 // best-performing match first
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "backoff");       // idle strategy for AUTO progress
            AddressVector av = domain.addressVector(AvType.TABLE, 16);
            CompletionQueue cq = domain.completionQueue(1024, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            long peer = av.insert(ep.name());                      // talk to ourselves
            UnsafeBuffer tx = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            UnsafeBuffer rx = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            tx.putStringWithoutLengthAscii(0, "hello, fabric");
            // data-path calls return 0 or -errno (-EAGAIN: queue full, retry); they never throw
            ep.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 0x42, 0, 1L);   // tag 0x42, ignore 0, context 1
            ep.tsend(tx, 0, 64, peer, 0x42, 2L);
            CompletionEntry e = new CompletionEntry();
            int completions = 0;
            while (completions < 2)
            {
                int n = cq.read(e);                                // MANUAL: the read drives the domain agent
                if (n == 1)
                {
                    completions++;
                }
                else if (n == -Errno.EAVAIL.value())               // an operation failed: read its error entry
                {
                    CompletionErrorEntry err = new CompletionErrorEntry();
                    cq.readErr(err);
                    throw new IllegalStateException("operation " + err.context() + " failed: " + err.errno());
                }
            }
            System.out.println(rx.getStringWithoutLengthAscii(0, 13));    // hello, fabric
        }
        // ---- end of README: first program ----
    }
}
