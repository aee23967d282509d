package io.jfabric.provider.gni;

import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.Domain;
import io.jfabric.EqEntry;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Progress;
import io.jfabric.conformance.AvConformance;
import io.jfabric.conformance.Pair;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link AvConformance} over the {@code gni} provider. gni has neither {@code FI_EVENT} address vectors
 * ({@link GniDifferences#NO_AV_EVENT}) nor named ones ({@link GniDifferences#NO_NAMED_AV}): each such case is
 * overridden by a gni form that asserts {@code ENOSYS} and then does the case's inserts the way gni offers them
 * (synchronously, with {@code FI_SYNC_ERR}). The rest of GNI.md §2.13 is {@link GniAddressVectorTest}.
 */
class GniAvConformanceTest extends AvConformance
{
    GniAvConformanceTest()
    {
        super(GniConformance.FACTORY);
    }

    @Override
    @Test
    @DisplayName("gni NO_AV_EVENT: FI_EVENT open and bind ENOSYS; the inserts complete at once with per-address errors")
    protected void shouldCompleteAsyncInsertsWithAvCompleteAndPerAddressErrorEvents()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final EventQueue eq = p.fabric.eventQueue(8);
            try (AddressVector av = p.domainA.addressVector(AvAttr.builder().type(AvType.TABLE).count(4).build()))
            {
                assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> p.domainA.addressVector(
                    AvAttr.builder().type(AvType.TABLE).count(4).flags(AvAttr.EVENT).build())).errno());
                assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> av.bind(eq, 0)).errno());
                final byte[][] addresses = {p.b.name(), "not an address".getBytes(), null, p.a.name()};
                final long[] handles = new long[4];
                final int[] errors = new int[4];
                assertEquals(2, av.insert(addresses, handles, AddressVector.SYNC_ERR, errors));
                assertEquals(0, handles[0]);
                assertEquals(AddressVector.ADDR_NOTAVAIL, handles[1]);
                assertEquals(AddressVector.ADDR_NOTAVAIL, handles[2]);
                assertEquals(1, handles[3]);
                assertEquals(0, errors[0]);
                assertEquals(Errno.EINVAL.value(), Math.abs(errors[1]));
                assertEquals(Errno.EINVAL.value(), Math.abs(errors[2]));
                assertEquals(0, errors[3]);
                assertArrayEquals(p.b.name(), av.lookup(0));
                assertArrayEquals(p.a.name(), av.lookup(1));
                assertEquals(Errno.EAGAIN.negated(), eq.read(new EqEntry(), 0), "no event of any insert");
            }
            finally
            {
                eq.close();
            }
        }
    }

    @Override
    @Test
    @DisplayName("gni NO_AV_EVENT: no event vector to overflow; an insert with a context on a plain vector inserts")
    protected void shouldRefuseAnAsyncInsertWhoseEventsDoNotFitTheEventQueue()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                () -> p.domainA.addressVector(AvAttr.builder().flags(AvAttr.EVENT).build())).errno());
            try (AddressVector av = p.domainA.addressVector(AvAttr.builder().build()))
            {
                final long[] handles = new long[2];
                assertEquals(1, av.insert(new byte[][]{p.b.name()}, handles, 0, 6L));
                assertEquals(0, handles[0]);
            }
        }
    }

    @Override
    @Test
    @DisplayName("gni NO_AV_EVENT: FI_EVENT open and bind ENOSYS; the other bad attributes as the suite's")
    protected void shouldRefuseBadAvEventInput()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final EventQueue eq = p.fabric.eventQueue(4);
            try (AddressVector plain = p.domainA.addressVector(AvAttr.builder().build()))
            {
                assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                    () -> p.domainA.addressVector(AvAttr.builder().flags(AvAttr.EVENT).build())).errno());
                assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> plain.bind(eq, 0)).errno());
                assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class,
                    () -> p.domainA.addressVector(AvAttr.builder().flags(Flags.WRITE).build())).errno());
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                    () -> p.domainA.addressVector(AvAttr.builder().count(-1).build())).errno());
                assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                    () -> p.domainA.addressVector((AvAttr) null)).errno());
                final long[] handles = new long[1];
                assertEquals(1, plain.insert(new byte[][]{p.b.name()}, handles, 0, 9L));
                assertEquals(Errno.EAGAIN.negated(), eq.read(new EqEntry(), 0), "no event for a plain vector");
            }
            finally
            {
                eq.close();
            }
        }
    }

    @Override
    @Test
    @DisplayName("gni NO_NAMED_AV: a named vector ENOSYS, created or read; each domain inserts into its own")
    protected void shouldShareANamedAddressVectorReadOnlyWithAnotherDomain()
    {
        try (Pair p = pair(Progress.AUTO))
        {
            final String name = uniqueName();
            assertEquals(0, p.infoA.caps() & Flags.SHARED_AV, "FI_SHARED_AV is not advertised");
            assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> p.domainA.addressVector(
                AvAttr.builder().type(AvType.TABLE).count(8).name(name).build())).errno());
            assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> p.domainB.addressVector(
                AvAttr.builder().name(name).flags(AvAttr.READ).build())).errno());
            try (AddressVector a = p.domainA.addressVector(AvAttr.builder().type(AvType.TABLE).count(8).build());
                AddressVector b = p.domainB.addressVector(AvAttr.builder().type(AvType.TABLE).count(8).build()))
            {
                final long[] handles = new long[2];
                assertEquals(2, a.insert(new byte[][]{p.b.name(), p.a.name()}, handles, 0, null));
                assertEquals(2, b.insert(new byte[][]{p.b.name(), p.a.name()}, handles, 0, null));
                assertArrayEquals(a.lookup(0), b.lookup(0));
                assertArrayEquals(a.lookup(1), b.lookup(1));
            }
        }
    }

    @Override
    @Test
    @DisplayName("gni NO_NAMED_AV: every named open ENOSYS, before its name is looked at; FI_READ alone EINVAL")
    protected void shouldRefuseBadNamedAddressVectorInput()
    {
        try (Pair p = pair(Progress.MANUAL))
        {
            final String name = uniqueName();
            final Domain d = p.domainA;
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> d.addressVector(AvAttr.builder().flags(AvAttr.READ).build())).errno(), "FI_READ, no name");
            for (final AvAttr named : new AvAttr[]{
                AvAttr.builder().name(name).flags(AvAttr.READ).build(),
                AvAttr.builder().name("bad/name").build(),
                AvAttr.builder().name("").build(),
                AvAttr.builder().name(name).type(AvType.MAP).build(),
                AvAttr.builder().name(name).count(2).flags(AvAttr.SYMMETRIC).build()})
            {
                assertEquals(Errno.ENOSYS, assertThrows(FabricException.class, () -> d.addressVector(named)).errno(),
                    named.name());
            }
        }
    }
}
