package io.jfabric.conformance;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.CompletionQueue;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.atomic.AtomicInteger;

import static io.jfabric.conformance.Pair.assertPattern;
import static io.jfabric.conformance.Pair.direct;
import static io.jfabric.conformance.Pair.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Address vectors bound to an event queue ({@code FI_EVENT}, {@code FI_AV_COMPLETE}; fabtests' {@code av_test}
 * async cases) and named address vectors shared between domains ({@code attr.name}, {@code FI_READ},
 * {@code FI_SHARED_AV}; fabtests' {@code rdm_shared_av} within one process), with bad input.
 */
@Timeout(120)
public abstract class AvConformance extends Conformance
{
    private static final AtomicInteger NAMES = new AtomicInteger();

    /**
     * @param factory the provider under test.
     */
    protected AvConformance(final PairFactory factory)
    {
        super(factory);
    }

    /**
     * @return a name no other test of this JVM uses.
     */
    protected static String uniqueName()
    {
        return "av-" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet();
    }

    @Test
    protected void shouldCompleteAsyncInsertsWithAvCompleteAndPerAddressErrorEvents()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final EventQueue eq = p.fabric.eventQueue(8);
            final AddressVector av = p.domainA.addressVector(AvAttr.builder().type(AvType.TABLE).count(4)
                .flags(AvAttr.EVENT).build());
            try
            {
                final byte[][] addresses = {p.b.name(), "not an address".getBytes(), null, p.a.name()};
                final long[] handles = new long[4];
                assertEquals(Errno.ENOEQ, assertThrows(FabricException.class,
                    () -> av.insert(addresses, handles, 0, 77L)).errno(), "no event queue bound");
                assertSame(av, av.bind(eq, 0));
                assertEquals(0, av.insert(addresses, handles, 0, 77L), "returns at once");
                assertEquals(0, handles[0]);
                assertEquals(AddressVector.ADDR_NOTAVAIL, handles[1]);
                assertEquals(AddressVector.ADDR_NOTAVAIL, handles[2]);
                assertEquals(1, handles[3]);
                final EqEntry entry = new EqEntry();
                for (final int index : new int[]{1, 2})
                {
                    assertEquals(Errno.EAVAIL.negated(), eq.read(entry, 0));
                    assertEquals(1, eq.readErr(entry));
                    assertEquals(EventQueue.AV_COMPLETE, entry.event());
                    assertEquals(Errno.EINVAL.value(), entry.err());
                    assertEquals(index, entry.data(), "the failed address's index");
                    assertEquals(77, entry.context());
                    assertSame(av, entry.fid());
                }
                assertEquals(1, eq.read(entry, 0));
                assertEquals(EventQueue.AV_COMPLETE, entry.event());
                assertEquals(2, entry.data(), "addresses inserted");
                assertEquals(77, entry.context());
                assertSame(av, entry.fid());
                assertEquals(0, entry.err());
                assertArrayEquals(p.b.name(), av.lookup(0));
                assertArrayEquals(p.a.name(), av.lookup(1));
                assertEquals(Errno.EAGAIN.negated(), eq.read(entry, 0));
                assertEquals(2, av.insert(p.b.name()), "the single form completes too");
                assertEquals(1, eq.read(entry, 0));
                assertEquals(1, entry.data());
            }
            finally
            {
                av.close();
                eq.close();
            }
        }
    }

    @Test
    protected void shouldRefuseAnAsyncInsertWhoseEventsDoNotFitTheEventQueue()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final EventQueue eq = p.fabric.eventQueue(1);
            final AddressVector av = p.domainA.addressVector(AvAttr.builder().flags(AvAttr.EVENT).build());
            try
            {
                av.bind(eq, 0);
                final long[] handles = new long[2];
                assertEquals(Errno.EAGAIN.negated(), av.insert(new byte[][]{p.b.name(), null}, handles, 0, 5L),
                    "two events, room for one");
                assertEquals(0, av.insert(new byte[][]{p.b.name()}, handles, 0, 6L));
                assertEquals(0, handles[0], "the refused insert inserted nothing");
                final EqEntry entry = new EqEntry();
                assertEquals(1, eq.read(entry, 0));
                assertEquals(6, entry.context());
                assertEquals(1, entry.data());
            }
            finally
            {
                av.close();
                eq.close();
            }
        }
    }

    @Test
    protected void shouldRefuseBadAvEventInput()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final EventQueue eq = p.fabric.eventQueue(4);
            final AddressVector plain = p.domainA.addressVector(AvAttr.builder().build());
            final AddressVector evented = p.domainA.addressVector(AvAttr.builder().flags(AvAttr.EVENT).build());
            try
            {
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> plain.bind(eq, 0)).errno(),
                    "opened without FI_EVENT");
                assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class,
                    () -> evented.bind(eq, Flags.READ)).errno());
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                    () -> evented.bind(null, 0)).errno());
                evented.bind(eq, 0);
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> evented.bind(eq, 0)).errno(),
                    "bound already");
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                    () -> evented.insert(new byte[][]{p.b.name()}, new long[1], 0, new int[1])).errno(),
                    "an event vector inserts with a context");
                assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class,
                    () -> evented.insert(new byte[][]{p.b.name()}, new long[1], AddressVector.SYNC_ERR, 1L)).errno());
                assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class,
                    () -> p.domainA.addressVector(AvAttr.builder().flags(Flags.WRITE).build())).errno());
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                    () -> p.domainA.addressVector(AvAttr.builder().count(-1).build())).errno());
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                    () -> p.domainA.addressVector((AvAttr) null)).errno());
                final long[] handles = new long[1];
                assertEquals(1, plain.insert(new byte[][]{p.b.name()}, handles, 0, 9L),
                    "a plain insert with a context");
                final EqEntry entry = new EqEntry();
                assertEquals(Errno.EAGAIN.negated(), eq.read(entry, 0), "no event for a plain vector");
            }
            finally
            {
                plain.close();
                evented.close();
                eq.close();
            }
        }
    }

    @Test
    protected void shouldShareANamedAddressVectorReadOnlyWithAnotherDomain()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final String name = uniqueName();
            final AddressVector creator = p.domainA.addressVector(AvAttr.builder().type(AvType.TABLE).count(8)
                .name(name).build());
            AddressVector reader = null;
            CompletionQueue cq = null;
            Endpoint e = null;
            try
            {
                assertTrue((p.infoA.caps() & Flags.SHARED_AV) != 0, "FI_SHARED_AV is advertised");
                final long[] handles = new long[2];
                assertEquals(2, creator.insert(new byte[][]{p.b.name(), p.a.name()}, handles, 0, null));
                assertEquals(0, handles[0]);
                assertEquals(1, handles[1]);
                reader = p.domainB.addressVector(AvAttr.builder().name(name).flags(AvAttr.READ).build());
                assertTrue(reader.readOnly());
                assertArrayEquals(p.b.name(), reader.lookup(0), "same index, same peer");
                assertArrayEquals(p.a.name(), reader.lookup(1));
                final AddressVector r = reader;
                assertEquals(Errno.EACCES, assertThrows(FabricException.class, () -> r.insert(p.a.name())).errno());
                assertEquals(Errno.EACCES, assertThrows(FabricException.class, () -> r.remove(0)).errno());
                // An endpoint of domain b sends to fi_addr 1 of the shared vector: endpoint a gets it.
                cq = p.domainB.completionQueue(16, CqFormat.TAGGED);
                e = p.domainB.endpoint(p.infoB).bind(reader, 0).bind(cq, Flags.TRANSMIT | Flags.RECV).enable();
                final UnsafeBuffer rx = direct(128);
                assertEquals(0, p.a.recv(rx, 0, 128, AddressVector.ADDR_UNSPEC, 4));
                assertEquals(0, e.send(pattern(128, 8), 0, 128, 1, 3));
                assertEquals(3, Drive.one(cq, p.domainB).context());
                assertEquals(4, Drive.one(p.cqA, p.domainA).context());
                assertPattern(rx, 0, 128, 8);
                // Inserted after the read-only open: seen when looked up.
                assertEquals(2, creator.insert(p.b.name()));
                assertArrayEquals(p.b.name(), reader.lookup(2));
                creator.remove(0);
                assertArrayEquals(p.a.name(), reader.lookup(1));
            }
            finally
            {
                if (null != e)
                {
                    e.close();
                }
                if (null != cq)
                {
                    cq.close();
                }
                if (null != reader)
                {
                    reader.close();
                }
                creator.close();
            }
            assertEquals(Errno.ENOENT, assertThrows(FabricException.class, () -> p.domainB.addressVector(
                AvAttr.builder().name(name).flags(AvAttr.READ).build())).errno(), "gone with its creator");
        }
    }

    @Test
    protected void shouldRefuseBadNamedAddressVectorInput()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final String name = uniqueName();
            final Domain d = p.domainA;
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> d.addressVector(AvAttr.builder().flags(AvAttr.READ).build())).errno(), "FI_READ, no name");
            assertEquals(Errno.ENOENT, assertThrows(FabricException.class,
                () -> d.addressVector(AvAttr.builder().name(name).flags(AvAttr.READ).build())).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> d.addressVector(AvAttr.builder().name("bad/name").build())).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> d.addressVector(AvAttr.builder().name("").build())).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> d.addressVector(AvAttr.builder().name(name).type(AvType.MAP).build())).errno());
            final AddressVector creator = d.addressVector(AvAttr.builder().name(name).count(2)
                .flags(AvAttr.SYMMETRIC).build());
            try
            {
                assertEquals(Errno.EEXIST, assertThrows(FabricException.class,
                    () -> p.domainB.addressVector(AvAttr.builder().name(name).build())).errno());
                final int[] errors = new int[3];
                final long[] handles = new long[3];
                assertEquals(2, creator.insert(new byte[][]{p.a.name(), p.b.name(), p.a.name()}, handles,
                    AddressVector.SYNC_ERR, errors), "capacity: count 2");
                assertArrayEquals(new int[]{0, 0, Errno.ENOSPC.value()}, errors);
                assertEquals(AddressVector.ADDR_NOTAVAIL, handles[2]);
            }
            finally
            {
                creator.close();
            }
            try (Domain plain = p.fabric.domain(p.infoA.toBuilder().caps(p.infoA.caps() & ~Flags.SHARED_AV).build()))
            {
                assertEquals(Errno.EOPNOTSUPP, assertThrows(FabricException.class,
                    () -> plain.addressVector(AvAttr.builder().name(name).build())).errno(), "no FI_SHARED_AV");
            }
        }
    }

    @Test
    protected void shouldTakeItsOwnNameAndRebindOrRefuseAnotherFromSetName()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final Endpoint e = p.domainA.endpoint(p.infoA);
            try
            {
                final byte[] own = e.name();
                e.setName(own);
                assertArrayEquals(own, e.name());
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> e.setName(null)).errno());
                final byte[] other = p.b.name();
                try
                {
                    e.setName(other);
                    assertArrayEquals(other, e.name(), "a transport that rebinds reports the new name");
                }
                catch (final FabricException ex)
                {
                    assertEquals(Errno.EOPNOTSUPP, ex.errno(), "a transport with fixed addresses refuses");
                    assertArrayEquals(own, e.name(), "refused: the name is unchanged");
                }
                e.bind(p.avA, 0).bind(p.cqA, Flags.TRANSMIT | Flags.RECV).enable();
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> e.setName(own)).errno(),
                    "enabled");
            }
            finally
            {
                e.close();
            }
        }
    }
}
