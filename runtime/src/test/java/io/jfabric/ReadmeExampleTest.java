package io.jfabric;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The README's "first program", kept compiling and true: an endpoint sends a tagged message to itself.
 */
class ReadmeExampleTest
{
    @Test
    @Timeout(30)
    void shouldRunTheReadmeExample()
    {
        final Info hints = Info.builder()
            .caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName("inproc").build())
            .domainAttr(DomainAttr.builder().dataProgress(Progress.MANUAL).build())
            .build();
        final Info info = Fabric.getInfo(hints).get(0);
        try (Fabric fabric = Fabric.open(info);
            Domain domain = fabric.domain(info, "backoff");
            AddressVector av = domain.addressVector(AvType.TABLE, 16);
            CompletionQueue cq = domain.completionQueue(1024, CqFormat.TAGGED);
            Endpoint ep = domain.endpoint(info).bind(av, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final long peer = av.insert(ep.name());
            final UnsafeBuffer tx = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            final UnsafeBuffer rx = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            for (int i = 0; i < 64; i++)
            {
                tx.putByte(i, (byte) (i * 7 + 1));
            }
            assertEquals(0, ep.trecv(rx, 0, 64, AddressVector.ADDR_UNSPEC, 0x42, 0, 1L));
            assertEquals(0, ep.tsend(tx, 0, 64, peer, 0x42, 2L));
            final CompletionEntry e = new CompletionEntry();
            long contexts = 0;
            int completions = 0;
            final long deadline = System.nanoTime() + 20_000_000_000L;
            while (completions < 2)
            {
                final int n = cq.read(e);
                if (n == 1)
                {
                    completions++;
                    contexts |= 1L << e.context();
                }
                else if (n == -Errno.EAVAIL.value())
                {
                    fail("unexpected error completion");
                }
                assertTrue(System.nanoTime() < deadline, "no completions within 20 s");
            }
            assertEquals(0b110L, contexts);
            for (int i = 0; i < 64; i++)
            {
                assertEquals((byte) (i * 7 + 1), rx.getByte(i));
            }
        }
    }
}
