package io.jfabric;

import io.jfabric.spi.Provider;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Properties of getInfo over random hints against the test providers: every returned info satisfies its
 * hints (soundness), and every provider info that a small independent reference model accepts is returned
 * (completeness), in provider rank order.
 */
class GetInfoPropertiesTest
{
    private static final long[] CAP_UNIVERSE = {
        Flags.MSG, Flags.TAGGED, Flags.RMA, Flags.ATOMIC, Flags.COLLECTIVE, Flags.DIRECTED_RECV, Flags.READ,
        Flags.WRITE, Flags.SEND, Flags.RECV, Flags.MULTI_RECV, Flags.SOURCE, Flags.RMA_EVENT };
    private static final long[] MODE_UNIVERSE = { Mode.CONTEXT, Mode.CONTEXT2, Mode.MSG_PREFIX };
    private static final long[] ORDER_UNIVERSE = { MsgOrder.SAS, MsgOrder.RAR, MsgOrder.WAW, MsgOrder.ATOMIC_WAW };

    /** Threading models from the most parallelism asked of a provider to the least (fi_getinfo ranking). */
    private static final List<Threading> PARALLELISM =
        List.of(Threading.SAFE, Threading.FID, Threading.ENDPOINT, Threading.COMPLETION, Threading.DOMAIN);

    private static final List<AddressFormat> SOCKET_FORMATS =
        List.of(AddressFormat.SOCKADDR, AddressFormat.SOCKADDR_IN, AddressFormat.SOCKADDR_IN6);

    private final List<Provider> providers = TestProviders.all();
    private final Discovery discovery = new Discovery(providers);

    @Provide
    Arbitrary<Info> hints()
    {
        // Every dimension is a wildcard three times in five, so that a fair share of the hints match something.
        final Arbitrary<Long> caps = wild(bits(CAP_UNIVERSE), 0L);
        final Arbitrary<Long> mode = bits(MODE_UNIVERSE);
        final Arbitrary<Long> order = wild(bits(ORDER_UNIVERSE), 0L);
        final Arbitrary<EndpointType> type = wild(Arbitraries.of(EndpointType.class), EndpointType.UNSPEC);
        final Arbitrary<AddressFormat> format = wild(Arbitraries.of(AddressFormat.SOCKADDR_IN,
            AddressFormat.SOCKADDR, AddressFormat.SOCKADDR_IN6, AddressFormat.STR, AddressFormat.GNI,
            AddressFormat.PSMX2), AddressFormat.UNSPEC);
        // rarer than the other dimensions: two of its three values reject every test provider
        final Arbitrary<Long> txCtx = Arbitraries.frequencyOf(Tuple.of(20, Arbitraries.just(0L)),
            Tuple.of(1, Arbitraries.just(1L)), Tuple.of(1, Arbitraries.just(2L)),
            Tuple.of(1, Arbitraries.just(EpAttr.SHARED_CONTEXT)));
        final Arbitrary<Long> txSize = wild(Arbitraries.of(1L, 64L, 65L, 500L, 501L, 1024L, 1025L, 3000L), 0L);
        final Arbitrary<Long> inject = wild(Arbitraries.of(1L, 16L, 17L, 64L, 65L), 0L);
        final Arbitrary<Long> maxMsg = wild(Arbitraries.of(100L, 65536L, 65537L, 1L << 30, (1L << 30) + 1, 1L << 32,
            (1L << 32) + 1), 0L);
        final Arbitrary<Threading> threading = wild(Arbitraries.of(Threading.class), Threading.UNSPEC);
        final Arbitrary<Progress> progress = wild(Arbitraries.of(Progress.class), Progress.UNSPEC);
        final Arbitrary<Long> tagFormat = wild(Arbitraries.of(0xFFFFFFFFL, TestProviders.ALPHA_TAG_FORMAT, -1L), 0L);
        final Arbitrary<String> provName =
            wild(Arbitraries.of("alpha", "beta", "gamma", "nosuch", "^alpha", "beta;gamma"), "");
        return Combinators.combine(caps, mode, order, type, format, txSize, inject, maxMsg)
            .as((c, m, o, t, f, s, i, mm) -> Info.alloc().toBuilder()
                .caps(c).mode(m).addrFormat(f)
                .txAttr(TxAttr.builder().size(s).injectSize(i).msgOrder(o).build())
                .epAttr(EpAttr.builder().type(t).maxMsgSize(mm).build()))
            .flatMap(b -> Combinators.combine(threading, progress, tagFormat, provName, txCtx)
                .as((th, pr, tf, pn, tx) ->
                {
                    final Info partial = b.build();
                    return partial.toBuilder()
                        .epAttr(partial.epAttr().toBuilder().memTagFormat(tf).txCtxCnt(tx).build())
                        .domainAttr(DomainAttr.builder().threading(th).dataProgress(pr).build())
                        .fabricAttr(FabricAttr.builder().provName(pn.isEmpty() ? null : pn).build())
                        .build();
                }));
    }

    private static <T> Arbitrary<T> wild(final Arbitrary<T> values, final T wildcard)
    {
        return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(wildcard)), Tuple.of(2, values));
    }

    private static Arbitrary<Long> bits(final long[] universe)
    {
        return Arbitraries.integers().between(0, (1 << universe.length) - 1).map(mask ->
        {
            long v = 0;
            for (int i = 0; i < universe.length; i++)
            {
                if ((mask & (1 << i)) != 0)
                {
                    v |= universe[i];
                }
            }
            return v;
        });
    }

    @Property(tries = 400)
    void everyReturnedInfoSatisfiesItsHints(@ForAll("hints") final Info hints)
    {
        for (final Info out : run(hints))
        {
            final long primary = hints.caps() & Flags.PRIMARY_CAPS;
            assertTrue((out.caps() & hints.caps()) == hints.caps(), "requested caps present");
            if (primary != 0)
            {
                assertEquals(primary, out.caps() & Flags.PRIMARY_CAPS, "only requested primary caps");
            }
            assertEquals(0, out.mode() & ~hints.mode(), "modes only those the application supports");
            if (hints.epAttr().type() != EndpointType.UNSPEC)
            {
                assertEquals(hints.epAttr().type(), out.epAttr().type());
            }
            if (hints.addrFormat() == AddressFormat.SOCKADDR)
            {
                assertTrue(SOCKET_FORMATS.contains(out.addrFormat()), out.addrFormat().fiName());
            }
            else if (hints.addrFormat() != AddressFormat.UNSPEC)
            {
                assertEquals(hints.addrFormat(), out.addrFormat());
            }
            if (hints.epAttr().txCtxCnt() != 0)
            {
                assertEquals(hints.epAttr().txCtxCnt(), out.epAttr().txCtxCnt());
            }
            assertTrue(Long.compareUnsigned(out.txAttr().size(), hints.txAttr().size()) >= 0);
            assertTrue(Long.compareUnsigned(out.txAttr().injectSize(), hints.txAttr().injectSize()) >= 0);
            assertTrue(Long.compareUnsigned(out.epAttr().maxMsgSize(), hints.epAttr().maxMsgSize()) >= 0);
            assertEquals(hints.epAttr().memTagFormat(), out.epAttr().memTagFormat() & hints.epAttr().memTagFormat());
            assertEquals(hints.txAttr().msgOrder(), out.txAttr().msgOrder() & hints.txAttr().msgOrder());
            if (hints.domainAttr().threading() != Threading.UNSPEC)
            {
                assertEquals(hints.domainAttr().threading(), out.domainAttr().threading());
            }
            if (hints.domainAttr().dataProgress() != Progress.UNSPEC)
            {
                assertEquals(hints.domainAttr().dataProgress(), out.domainAttr().dataProgress());
            }
            assertTrue(hints.fabricAttr().provName() == null ||
                InfoMatcher.providerNameMatches(out.providerName(), hints.fabricAttr().provName()));
            assertTrue(out.srcAddr() != null, "source address filled");
        }
    }

    // 1000 tries: about one hint in six matches something, so the 10 % coverage floor below is never missed by chance
    @Property(tries = 1000)
    @StatisticsReport(StatisticsReport.StatisticsReportMode.OFF)
    void everyAcceptableProviderInfoIsReturnedInRankOrder(@ForAll("hints") final Info hints)
    {
        final List<String> expected = new ArrayList<>();
        for (final Provider p : discovery.providers())
        {
            for (final Info info : p.infos())
            {
                if (acceptable(p, info, hints))
                {
                    expected.add(p.name() + "/" + info.epAttr().type());
                }
            }
        }
        final List<String> actual = new ArrayList<>();
        for (final Info out : run(hints))
        {
            actual.add(out.providerName() + "/" + out.epAttr().type());
        }
        assertEquals(expected, actual);
        // the property must not hold vacuously: a fair share of the hints has to match something
        Statistics.label("matches").collect(actual.isEmpty() ? "none" : "some");
        Statistics.label("matches").coverage(c -> c.check("some").percentage(p -> p >= 10.0));
    }

    private List<Info> run(final Info hints)
    {
        try
        {
            return discovery.getInfo(Version.CURRENT, null, null, 0, hints);
        }
        catch (final FabricException ex)
        {
            assertEquals(Errno.ENODATA, ex.errno(), ex.getMessage());
            return List.of();
        }
    }

    /** fi_getinfo's address format rule over the formats the generator and the test providers use. */
    private static boolean formatServes(final AddressFormat prov, final AddressFormat hint)
    {
        if (hint == AddressFormat.UNSPEC || hint == prov)
        {
            return true;
        }
        // IPv4 and IPv6 both fit a generic sockaddr; an IPv4-only provider takes the generic hint but not IPv6
        return prov == AddressFormat.SOCKADDR_IN && hint == AddressFormat.SOCKADDR;
    }

    /** The reference model over the dimensions the generator varies, written independently of InfoMatcher. */
    private static boolean acceptable(final Provider p, final Info prov, final Info h)
    {
        final String filter = h.fabricAttr().provName();
        if (filter != null)
        {
            final boolean exclude = filter.startsWith("^");
            final boolean listed = List.of((exclude ? filter.substring(1) : filter).split(";")).contains(p.name());
            if (exclude == listed)
            {
                return false;
            }
        }
        final EndpointType type = h.epAttr().type();
        final Threading th = h.domainAttr().threading();
        final Threading pth = prov.domainAttr().threading();
        return (h.caps() & ~prov.caps()) == 0 &&
            (prov.mode() & ~h.mode()) == 0 &&
            (type == EndpointType.UNSPEC || type == prov.epAttr().type()) &&
            formatServes(prov.addrFormat(), h.addrFormat()) &&
            (h.epAttr().txCtxCnt() == EpAttr.SHARED_CONTEXT ? prov.domainAttr().maxEpStxCtx() != 0 :
                Long.compareUnsigned(h.epAttr().txCtxCnt(), prov.epAttr().txCtxCnt()) <= 0) &&
            Long.compareUnsigned(h.txAttr().size(), prov.txAttr().size()) <= 0 &&
            Long.compareUnsigned(h.txAttr().injectSize(), prov.txAttr().injectSize()) <= 0 &&
            Long.compareUnsigned(h.epAttr().maxMsgSize(), prov.epAttr().maxMsgSize()) <= 0 &&
            (h.epAttr().memTagFormat() & ~prov.epAttr().memTagFormat()) == 0 &&
            (h.txAttr().msgOrder() & ~prov.txAttr().msgOrder()) == 0 &&
            (th == Threading.UNSPEC || pth == Threading.UNSPEC ||
                PARALLELISM.indexOf(th) >= PARALLELISM.indexOf(pth)) &&
            !(h.domainAttr().dataProgress() == Progress.AUTO && prov.domainAttr().dataProgress() == Progress.MANUAL);
    }
}
