package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvType;
import io.jfabric.CompletionErrorEntry;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.error;
import static io.jfabric.conformance.Pair.one;
import static io.jfabric.conformance.Pair.pattern;
import static io.jfabric.provider.gni.GniOpsTest.info;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code FI_SOURCE_ERR} over gni (GNI.md §2.10): a message from a sender the receiver's AV does not hold completes as
 * an error {@code FI_EADDRNOTAVAIL} with the sender's 48-byte {@code gnix_ep_name} in {@code err_data}, and inserting
 * that name names the sender.
 */
class GniSourceErrTest
{
    @Test
    void shouldReportAnUnknownSenderWithItsRawNameAndLetTheReceiverInsertIt()
    {
        final Info info = info(MrMode.MMU_NOTIFY, Progress.AUTO, null,
            Flags.MSG | Flags.SOURCE | Flags.SOURCE_ERR);
        assertEquals(Flags.SOURCE | Flags.SOURCE_ERR, info.caps() & (Flags.SOURCE | Flags.SOURCE_ERR));
        try (Fabric fabric = Fabric.open(info);
            Domain domainA = fabric.domain(info);
            Domain domainB = fabric.domain(info);
            AddressVector avA = domainA.addressVector(AvType.TABLE, 4);
            AddressVector avB = domainB.addressVector(AvType.TABLE, 4);
            CompletionQueue cqA = domainA.completionQueue(64, CqFormat.TAGGED);
            CompletionQueue cqB = domainB.completionQueue(64, CqFormat.TAGGED);
            Endpoint a = domainA.endpoint(info).bind(avA, 0).bind(cqA, Flags.TRANSMIT | Flags.RECV).enable();
            Endpoint b = domainB.endpoint(info).bind(avB, 0).bind(cqB, Flags.TRANSMIT | Flags.RECV).enable())
        {
            final long bFromA = avA.insert(b.name());
            final UnsafeBuffer sink = direct(64);
            assertEquals(0, b.recv(sink, 0, 64, AddressVector.ADDR_UNSPEC, 1));
            assertEquals(0, a.send(pattern(40, 4), 0, 40, bFromA, 2));
            assertEquals(2, one(cqA).context());

            final CompletionErrorEntry entry = error(cqB);
            assertEquals(1, entry.context());
            assertEquals(Errno.EADDRNOTAVAIL.value(), entry.err());
            assertEquals(40, entry.len());
            assertEquals(AddressVector.ADDR_NOTAVAIL, entry.src());
            assertEquals(GniName.LENGTH, entry.errDataSize());
            final byte[] raw = Arrays.copyOf(entry.errData(), entry.errDataSize());
            assertArrayEquals(a.name(), raw);
            assertPattern(sink, 0, 40, 4);

            final long aFromB = avB.insert(raw);
            final UnsafeBuffer back = direct(64);
            assertEquals(0, a.recv(back, 0, 64, AddressVector.ADDR_UNSPEC, 3));
            assertEquals(0, b.send(pattern(24, 5), 0, 24, aFromB, 4));
            assertEquals(4, one(cqB).context());
            assertEquals(3, one(cqA).context());
            assertPattern(back, 0, 24, 5);

            // Known now: the next message from a completes normally.
            assertEquals(0, b.recv(sink, 0, 64, AddressVector.ADDR_UNSPEC, 5));
            assertEquals(0, a.send(pattern(8, 6), 0, 8, bFromA, 6));
            assertEquals(6, one(cqA).context());
            assertEquals(5, one(cqB).context());
        }
    }
}
