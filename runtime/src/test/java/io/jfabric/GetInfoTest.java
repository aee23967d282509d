package io.jfabric;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One test (or parameterised family) per line of the getinfo section of CONFORMANCE.md, against the
 * test-only providers alpha (sockaddr_in, rank 10), beta (FI_ADDR_STR, needs FI_CONTEXT, rank 20) and gamma
 * (GNI, needs FI_CONTEXT, rank 30).
 */
class GetInfoTest
{
    private final AtomicInteger lookups = new AtomicInteger();
    private final Discovery discovery = new Discovery(TestProviders.all(), host ->
    {
        lookups.incrementAndGet();
        if ("alpha-host.test".equals(host))
        {
            return new InetAddress[] { InetAddress.getByAddress(host, new byte[] { 10, 1, 2, 3 }) };
        }
        throw new java.net.UnknownHostException(host);
    });

    private List<Info> getInfo(final String node, final String service, final long flags, final Info hints)
    {
        return discovery.getInfo(Version.CURRENT, node, service, flags, hints);
    }

    private static Errno errnoOf(final Runnable r)
    {
        return assertThrows(FabricException.class, r::run).errno();
    }

    private static List<String> providersOf(final List<Info> infos)
    {
        return infos.stream().map(Info::providerName).collect(Collectors.toList());
    }

    private static Info hints(final UnaryOperator<Info.Builder> f)
    {
        return f.apply(Info.alloc().toBuilder().mode(Mode.CONTEXT | Mode.CONTEXT2)).build();
    }

    private static Info alphaRdmHints(final UnaryOperator<Info.Builder> f)
    {
        return f.apply(Info.alloc().toBuilder()
            .fabricAttr(FabricAttr.builder().provName("alpha").build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).build())).build();
    }

    // - No node, service or hints: every provider's default infos; src_addr set.

    @Test
    void shouldReturnEveryProviderInfoWithSourceAddressWhenNoNodeServiceOrHints()
    {
        final List<Info> infos = getInfo(null, null, 0, null);

        assertEquals(List.of("alpha", "alpha", "beta", "gamma", "gamma"), providersOf(infos));
        for (final Info info : infos)
        {
            assertNotNull(info.srcAddr(), info.providerName());
            assertNull(info.destAddr());
            assertEquals(Version.CURRENT, info.fabricAttr().apiVersion());
        }
        final InetSocketAddress alphaSrc = SockAddr.decode(infos.get(0).srcAddr());
        assertEquals("0.0.0.0", alphaSrc.getAddress().getHostAddress());
        assertEquals("fi_beta://local", new String(infos.get(2).srcAddr(), StandardCharsets.UTF_8));
        assertEquals(Version.of(2, 3), infos.get(0).fabricAttr().provVersion());
    }

    // - node and/or service with FI_SOURCE: source address resolved from them; without FI_SOURCE:
    //   destination address resolved, source filled.

    @Test
    void shouldResolveSourceAddressFromNodeAndServiceWithFiSource()
    {
        final List<Info> infos = getInfo("127.0.0.1", "7471", Flags.SOURCE, alphaRdmHints(b -> b));

        assertEquals(1, infos.size());
        final InetSocketAddress src = SockAddr.decode(infos.get(0).srcAddr());
        assertEquals("127.0.0.1", src.getAddress().getHostAddress());
        assertEquals(7471, src.getPort());
        assertNull(infos.get(0).destAddr());
    }

    @Test
    void shouldResolveSourceFromServiceOnlyWithFiSource()
    {
        final Info info = getInfo(null, "9000", Flags.SOURCE, alphaRdmHints(b -> b)).get(0);

        final InetSocketAddress src = SockAddr.decode(info.srcAddr());
        assertEquals("0.0.0.0", src.getAddress().getHostAddress());
        assertEquals(9000, src.getPort());
    }

    @Test
    void shouldResolveDestinationAndFillSourceWithoutFiSource()
    {
        final Info info = getInfo("alpha-host.test", "7471", 0, alphaRdmHints(b -> b)).get(0);

        final InetSocketAddress dest = SockAddr.decode(info.destAddr());
        assertEquals("10.1.2.3", dest.getAddress().getHostAddress());
        assertEquals(7471, dest.getPort());
        assertNotNull(info.srcAddr());
        assertEquals(1, lookups.get());
    }

    @Test
    void shouldResolveDestinationForEveryProviderThatCanExpressTheNode()
    {
        final List<Info> infos = getInfo("10.0.0.9", "55", 0, hints(b -> b.caps(Flags.MSG)));

        // gamma cannot express a host:port as a GNI address and drops out; beta expresses it as a string
        assertEquals(List.of("alpha", "alpha", "beta"), providersOf(infos));
        assertEquals("fi_beta://10.0.0.9:55", new String(infos.get(2).destAddr(), StandardCharsets.UTF_8));
    }

    @Test
    void shouldRefuseFiSourceWithoutNodeOrService()
    {
        assertEquals(Errno.EINVAL, errnoOf(() -> getInfo(null, null, Flags.SOURCE, null)));
    }

    // - FI_NUMERICHOST: node must be a numeric address; a name is refused (ENODATA), no lookup made.

    @Test
    void shouldRefuseHostNameWithNumericHostWithoutLookup()
    {
        final FabricException ex = assertThrows(
            FabricException.class, () -> getInfo("alpha-host.test", "7471", Flags.NUMERICHOST, null));

        assertEquals(Errno.ENODATA, ex.errno());
        assertTrue(ex.getMessage().contains("alpha-host.test"), ex.getMessage());
        assertEquals(0, lookups.get());
    }

    @Test
    void shouldAcceptNumericAddressWithNumericHostWithoutLookup()
    {
        final Info v4 = getInfo("192.168.7.1", "1", Flags.NUMERICHOST, alphaRdmHints(b -> b)).get(0);
        // an IPv6 literal is numeric too, but alpha's FI_SOCKADDR_IN cannot hold it
        final Errno v6 = errnoOf(() -> getInfo("::1", "2", Flags.NUMERICHOST, alphaRdmHints(b -> b)));

        assertEquals("192.168.7.1", SockAddr.decode(v4.destAddr()).getAddress().getHostAddress());
        assertEquals(Errno.ENODATA, v6);
        assertEquals(0, lookups.get());
    }

    // - FI_PROV_ATTR_ONLY: exactly one info per provider, default values, provider name and version.

    @Test
    void shouldReturnOneDefaultInfoPerProviderWithProvAttrOnly()
    {
        final List<Info> infos = getInfo(null, null, Flags.PROV_ATTR_ONLY, null);

        assertEquals(List.of("alpha", "beta", "gamma"), providersOf(infos));
        assertEquals(List.of(Version.of(2, 3), Version.of(1, 0), Version.of(1, 1)),
            infos.stream().map(i -> i.fabricAttr().provVersion()).collect(Collectors.toList()));
        for (final Info info : infos)
        {
            assertEquals(0, info.caps());
            assertEquals(TxAttr.ZERO, info.txAttr());
            assertEquals(DomainAttr.ZERO, info.domainAttr());
            assertEquals(EpAttr.ZERO, info.epAttr());
            assertNull(info.srcAddr());
        }
    }

    @Test
    void shouldListAProviderThatCannotRunHereWithProvAttrOnly()
    {
        // "exactly one fi_info struct, regardless of whether that provider is usable on the current platform"
        final Discovery withUnusable = new Discovery(List.of(TestProviders.alpha(),
            new TestProviders.FixedProvider("absent", Version.of(0, 9), 1, List.of())
            {
                @Override
                public List<Info> infos()
                {
                    throw new IllegalStateException("FI_PROV_ATTR_ONLY must not ask for the infos");
                }
            }));

        final List<Info> infos = withUnusable.getInfo(Version.CURRENT, null, null, Flags.PROV_ATTR_ONLY, null);

        assertEquals(List.of("absent", "alpha"), providersOf(infos));
        assertEquals(Version.of(0, 9), infos.get(0).fabricAttr().provVersion());
        assertEquals(Errno.ENODATA, errnoOf(() -> withUnusable.getInfo(Version.CURRENT, null, null, 0,
            hints(b -> b.fabricAttr(FabricAttr.builder().provName("absent").build())))));
    }

    @Test
    void shouldFilterProvAttrOnlyByProviderName()
    {
        final List<Info> infos = getInfo(null, null, Flags.PROV_ATTR_ONLY,
            Info.alloc().toBuilder().fabricAttr(FabricAttr.builder().provName("beta").build()).build());

        assertEquals(List.of("beta"), providersOf(infos));
    }

    // - A non-zero hint must be met or the provider drops out; zero hints are wildcards — except mode:
    //   zero mode means the application supports no mode, so providers that need a mode drop out.

    @Test
    void shouldTreatZeroedHintsAsWildcardsExceptMode()
    {
        final List<Info> zeroMode = getInfo(null, null, 0, Info.alloc());
        final List<Info> allModes = getInfo(null, null, 0, hints(b -> b));

        assertEquals(List.of("alpha", "alpha"), providersOf(zeroMode));
        assertEquals(List.of("alpha", "alpha", "beta", "gamma", "gamma"), providersOf(allModes));
    }

    @Test
    void shouldClearModeBitsTheProviderDoesNotNeed()
    {
        final List<Info> infos = getInfo(null, null, 0, hints(b -> b.mode(Mode.CONTEXT | Mode.MSG_PREFIX)));

        assertEquals(0, infos.get(0).mode());
        assertEquals(Mode.CONTEXT, infos.get(2).mode());
    }

    @Test
    void shouldReturnProviderModesWhenHintsAreNull()
    {
        final List<Info> infos = getInfo(null, null, 0, null);

        assertEquals(Mode.CONTEXT, infos.get(2).mode());
    }

    // - ENODATA when: endpoint type differs; caps not a subset; a required mode bit missing; unsupported
    //   address format; provider, fabric or domain name mismatch; threading or progress level the provider
    //   can't give; maxima exceeded (maximum itself accepted); invalid mr_mode; msg_order/comp_order bits.

    static Stream<Arguments> refusedHints()
    {
        return Stream.of(
            Arguments.of("endpoint type", hint(b -> b.epAttr(EpAttr.builder().type(EndpointType.SOCK_STREAM).build()))),
            Arguments.of("caps not a subset", hint(b -> b.caps(Flags.MSG | Flags.COLLECTIVE))),
            Arguments.of("required mode missing", hint(b -> b.mode(Mode.MSG_PREFIX)
                .fabricAttr(FabricAttr.builder().provName("beta").build()))),
            Arguments.of("address format", hint(b -> b.addrFormat(AddressFormat.PSMX2))),
            Arguments.of("provider name", hint(b -> b.fabricAttr(FabricAttr.builder().provName("nosuch").build()))),
            Arguments.of("fabric name", hint(b -> b.fabricAttr(FabricAttr.builder().name("invalid_fabric").build()))),
            Arguments.of("domain name", hint(b -> b.domainAttr(DomainAttr.builder().name("invalid_domain").build()))),
            Arguments.of("threading", hint(b -> b.domainAttr(DomainAttr.builder().threading(Threading.SAFE).build())
                .fabricAttr(FabricAttr.builder().provName("alpha").build()))),
            Arguments.of("progress", hint(b -> b.domainAttr(DomainAttr.builder().dataProgress(Progress.AUTO).build())
                .fabricAttr(FabricAttr.builder().provName("beta").build()))),
            Arguments.of("mr_mode BASIC|SCALABLE", hint(b -> b.domainAttr(DomainAttr.builder()
                .mrMode(MrMode.BASIC | MrMode.SCALABLE).build()))),
            Arguments.of("mr_mode required by provider", hint(b -> b.domainAttr(DomainAttr.builder()
                .mrMode(MrMode.VIRT_ADDR).build()).fabricAttr(FabricAttr.builder().provName("alpha").build()))),
            Arguments.of("msg_order", hint(b -> b.txAttr(TxAttr.builder().msgOrder(MsgOrder.ATOMIC_WAW).build()))),
            Arguments.of("comp_order", hint(b -> b.rxAttr(RxAttr.builder().compOrder(CompOrder.STRICT).build()))),
            Arguments.of("tx op_flags", hint(b -> b.txAttr(TxAttr.builder().opFlags(Flags.COMMIT_COMPLETE).build()))),
            Arguments.of("domain caps", hint(b -> b.domainAttr(DomainAttr.builder().caps(Flags.SHARED_AV).build()))),
            Arguments.of("resource_mgmt", hint(b -> b.domainAttr(DomainAttr.builder()
                .resourceMgmt(ResourceMgmt.ENABLED).build())
                .fabricAttr(FabricAttr.builder().provName("nosuch").build())))
        );
    }

    private static Info hint(final UnaryOperator<Info.Builder> f)
    {
        return hints(f);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedHints")
    void shouldAnswerEnodataWhenHintCannotBeMet(final String what, final Info hints)
    {
        assertEquals(Errno.ENODATA, errnoOf(() -> getInfo(null, null, 0, hints)), what);
    }

    @Test
    void shouldNameEachReasonForNoMatchOnce()
    {
        final FabricException ex = assertThrows(FabricException.class, () -> getInfo(null, null, 0,
            hint(b -> b.fabricAttr(FabricAttr.builder().provName("absent").build()))));

        final String message = ex.getMessage();
        assertEquals(Errno.ENODATA, ex.errno());
        assertTrue(message.contains("'absent'"), message);
        final String[] reasons = message.substring(message.indexOf("no provider matches")).split("; ");
        assertEquals(reasons.length, java.util.Arrays.stream(reasons).distinct().count(), message);
    }

    @Test
    void shouldDropOnlyTheProviderThatCannotMeetTheEndpointType()
    {
        final List<Info> infos = getInfo(null, null, 0, hint(b -> b.epAttr(EpAttr.builder()
            .type(EndpointType.DGRAM).build())));

        assertEquals(List.of("gamma"), providersOf(infos));
        assertEquals(EndpointType.DGRAM, infos.get(0).epAttr().type());
    }

    @Test
    void shouldAcceptManualProgressFromAnAutoProvider()
    {
        final Info info = getInfo(null, null, 0, alphaRdmHints(b -> b.domainAttr(DomainAttr.builder()
            .dataProgress(Progress.MANUAL).controlProgress(Progress.MANUAL).build()))).get(0);

        assertEquals(Progress.MANUAL, info.domainAttr().dataProgress());
        assertEquals(Progress.MANUAL, info.domainAttr().controlProgress());
    }

    @Test
    void shouldRankThreadingByParallelismAsLibfabric()
    {
        // alpha is FI_THREAD_DOMAIN (least parallel), beta FI_THREAD_SAFE, gamma FI_THREAD_COMPLETION
        final Info endpoint = hint(b -> b.domainAttr(DomainAttr.builder().threading(Threading.ENDPOINT).build()));
        final Info domain = hint(b -> b.domainAttr(DomainAttr.builder().threading(Threading.DOMAIN).build()));

        assertEquals(List.of("beta"), providersOf(getInfo(null, null, 0, endpoint)));
        assertEquals(List.of("alpha", "alpha", "beta", "gamma", "gamma"), providersOf(getInfo(null, null, 0, domain)));
        assertEquals(Threading.DOMAIN, getInfo(null, null, 0, domain).get(2).domainAttr().threading());
    }

    @Test
    void shouldReturnRequestedQueueSizesWithinTheMaximum()
    {
        final Info info = getInfo(null, null, 0, alphaRdmHints(b -> b
            .txAttr(TxAttr.builder().size(16).iovLimit(2).build())
            .rxAttr(RxAttr.builder().size(32).build()))).get(0);

        assertEquals(16, info.txAttr().size());
        assertEquals(2, info.txAttr().iovLimit());
        assertEquals(64, info.txAttr().injectSize());
        assertEquals(32, info.rxAttr().size());
    }

    @Test
    void shouldAcceptLegacyBasicMrModeWhenItCoversTheProviderBits()
    {
        // FI_MR_BASIC covers VIRT_ADDR and PROV_KEY; the FI_LOCAL_MR mode bit covers FI_MR_LOCAL
        final List<Info> infos = getInfo(null, null, 0, alphaRdmHints(b -> b.mode(Mode.LOCAL_MR)
            .domainAttr(DomainAttr.builder().mrMode(MrMode.BASIC).build())));
        final Errno withoutLocalMr = errnoOf(() -> getInfo(null, null, 0, alphaRdmHints(b -> b
            .domainAttr(DomainAttr.builder().mrMode(MrMode.BASIC).build()))));

        assertEquals(1, infos.size());
        assertEquals(Errno.ENODATA, withoutLocalMr);
    }

    @Test
    void shouldRefuseBasicMrModeCombinedWithNewerBits()
    {
        assertEquals(Errno.ENODATA, errnoOf(() -> getInfo(null, null, 0, alphaRdmHints(b -> b
            .domainAttr(DomainAttr.builder().mrMode(MrMode.BASIC | MrMode.LOCAL).build())))));
    }

    @Test
    void shouldRefuseNewerMrModeBitsBeforeApi15AndAcceptThemFrom15()
    {
        final Info hints = alphaRdmHints(b -> b.domainAttr(DomainAttr.builder()
            .mrMode(MrMode.LOCAL | MrMode.VIRT_ADDR | MrMode.PROV_KEY).build()));

        assertEquals(Errno.ENODATA, errnoOf(() -> discovery.getInfo(Version.of(1, 4), null, null, 0, hints)));
        assertEquals(1, discovery.getInfo(Version.of(1, 5), null, null, 0, hints).size());
    }

    /** Each maximum: a hint equal to the provider's value is accepted, one more is refused. */
    static Stream<Arguments> maxima()
    {
        return Stream.of(
            Arguments.of("cq_data_size", 8L,
                (Setter) (b, v) -> b.domainAttr(DomainAttr.builder().cqDataSize(v).build())),
            Arguments.of("inject_size", 64L, (Setter) (b, v) -> b.txAttr(TxAttr.builder().injectSize(v).build())),
            Arguments.of("tx size", 1024L, (Setter) (b, v) -> b.txAttr(TxAttr.builder().size(v).build())),
            Arguments.of("rx size", 2048L, (Setter) (b, v) -> b.rxAttr(RxAttr.builder().size(v).build())),
            Arguments.of("tx iov_limit", 4L, (Setter) (b, v) -> b.txAttr(TxAttr.builder().iovLimit(v).build())),
            Arguments.of("rx iov_limit", 4L, (Setter) (b, v) -> b.rxAttr(RxAttr.builder().iovLimit(v).build())),
            Arguments.of("rma_iov_limit", 4L, (Setter) (b, v) -> b.txAttr(TxAttr.builder().rmaIovLimit(v).build())),
            Arguments.of("max_msg_size", 1L << 30,
                (Setter) (b, v) -> b.epAttr(EpAttr.builder().type(EndpointType.RDM).maxMsgSize(v).build())),
            Arguments.of("max_order_raw_size", 4096L,
                (Setter) (b, v) -> b.epAttr(EpAttr.builder().type(EndpointType.RDM).maxOrderRawSize(v).build())),
            Arguments.of("max_order_war_size", 4096L,
                (Setter) (b, v) -> b.epAttr(EpAttr.builder().type(EndpointType.RDM).maxOrderWarSize(v).build())),
            Arguments.of("max_order_waw_size", 4096L,
                (Setter) (b, v) -> b.epAttr(EpAttr.builder().type(EndpointType.RDM).maxOrderWawSize(v).build())),
            Arguments.of("cq_cnt", 256L, (Setter) (b, v) -> b.domainAttr(DomainAttr.builder().cqCnt(v).build())),
            Arguments.of("ep_cnt", 128L, (Setter) (b, v) -> b.domainAttr(DomainAttr.builder().epCnt(v).build())),
            Arguments.of("cntr_cnt", 64L, (Setter) (b, v) -> b.domainAttr(DomainAttr.builder().cntrCnt(v).build())),
            Arguments.of("mr_iov_limit", 4L,
                (Setter) (b, v) -> b.domainAttr(DomainAttr.builder().mrIovLimit(v).build())),
            Arguments.of("mr_key_size", 8L,
                (Setter) (b, v) -> b.domainAttr(DomainAttr.builder().mrKeySize(v).build())),
            Arguments.of("ep tx_ctx_cnt", 1L,
                (Setter) (b, v) -> b.epAttr(EpAttr.builder().type(EndpointType.RDM).txCtxCnt(v).build())),
            Arguments.of("ep rx_ctx_cnt", 1L,
                (Setter) (b, v) -> b.epAttr(EpAttr.builder().type(EndpointType.RDM).rxCtxCnt(v).build())));
    }

    @FunctionalInterface
    interface Setter
    {
        Info.Builder set(Info.Builder b, long value);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("maxima")
    void shouldAcceptTheMaximumAndRefuseOneMore(final String what, final long max, final Setter setter)
    {
        final List<Info> atMax = getInfo(null, null, 0, alphaRdmHints(b -> setter.set(b, max)));
        assertEquals(1, atMax.size(), what);

        assertEquals(Errno.ENODATA, errnoOf(() -> getInfo(null, null, 0, alphaRdmHints(b -> setter.set(b, max + 1)))),
            what);
    }

    @Test
    void shouldAcceptTheTagFormatAndRefuseOneMoreBit()
    {
        final long max = TestProviders.ALPHA_TAG_FORMAT;
        final Info ok = getInfo(null, null, 0, alphaRdmHints(b -> b.epAttr(EpAttr.builder()
            .type(EndpointType.RDM).memTagFormat(max).build()))).get(0);
        assertEquals(max, ok.epAttr().memTagFormat());

        assertEquals(Errno.ENODATA, errnoOf(() -> getInfo(null, null, 0, alphaRdmHints(b -> b.epAttr(EpAttr.builder()
            .type(EndpointType.RDM).memTagFormat((max << 1) | 1).build())))));
    }

    @Test
    void shouldAcceptSupportedOrdersAndReportAtLeastTheRequestedOnes()
    {
        final Info info = getInfo(null, null, 0, alphaRdmHints(b -> b.txAttr(TxAttr.builder()
            .msgOrder(MsgOrder.SAS | MsgOrder.RAW).build()))).get(0);

        assertEquals(TestProviders.ALPHA_MSG_ORDER, info.txAttr().msgOrder());
    }

    // - ENOSYS: requested API version newer than the library's. Version is (major, minor).

    @Test
    void shouldAnswerEnosysForNewerVersions()
    {
        final Version newerMinor = Version.of(Version.CURRENT.major(), Version.CURRENT.minor() + 1);
        final Version newerMajor = Version.of(Version.CURRENT.major() + 1, 0);

        assertEquals(Errno.ENOSYS, errnoOf(() -> discovery.getInfo(newerMinor, null, null, 0, null)));
        assertEquals(Errno.ENOSYS, errnoOf(() -> discovery.getInfo(newerMajor, null, null, 0, null)));
    }

    @Test
    void shouldServeOlderVersionsAndReportTheRequestedApiVersion()
    {
        final List<Info> infos = discovery.getInfo(Version.of(1, 0), null, null, 0, null);

        assertEquals(5, infos.size());
        assertEquals(Version.of(1, 0), infos.get(0).fabricAttr().apiVersion());
    }

    @Test
    void shouldRefuseUnknownGetInfoFlagsWithEbadflags()
    {
        assertEquals(Errno.EBADFLAGS, errnoOf(() -> getInfo(null, null, Flags.TAGGED, null)));
    }

    // - Primary caps must be requested to be enabled; secondary caps may be reported when free; modifiers
    //   restrict a primary cap; no modifier = all.

    @Test
    void shouldEnableOnlyRequestedPrimaryCapsAndReportFreeSecondaryCaps()
    {
        final Info info = getInfo(null, null, 0, alphaRdmHints(b -> b.caps(Flags.MSG))).get(0);

        assertEquals(Flags.MSG, info.caps() & Flags.PRIMARY_CAPS);
        assertEquals(0, info.caps() & Flags.TAGGED);
        // alpha's free secondary caps are the default set: reported although not requested
        final long free = Flags.MULTI_RECV | Flags.FENCE | Flags.LOCAL_COMM | Flags.REMOTE_COMM;
        assertEquals(free, info.caps() & Flags.SECONDARY_CAPS, Flags.print(info.caps()));
        assertEquals(0, info.txAttr().caps() & (Flags.TAGGED | Flags.RMA));
        // rx_attr holds only the receive-side caps of fi_endpoint(3) (FENCE and *_COMM are not among them)
        assertEquals(free & TestProviders.ALPHA_CAPS & Flags.RX_ATTR_CAPS, info.rxAttr().caps() & Flags.SECONDARY_CAPS);
    }

    @Test
    void shouldReportUnrequestedSourceOnlyWhenTheProviderCallsItFree()
    {
        // alpha has FI_SOURCE but, as most providers, does not call it free: it costs a lookup per completion
        final Info notFree = getInfo(null, null, 0, alphaRdmHints(b -> b.caps(Flags.MSG))).get(0);
        final Info requested = getInfo(null, null, 0, alphaRdmHints(b -> b.caps(Flags.MSG | Flags.SOURCE))).get(0);
        final Discovery freeSource = new Discovery(List.of(TestProviders.variant("freesource", b -> b,
            Flags.SOURCE | Flags.LOCAL_COMM)));
        final Info free = freeSource.getInfo(Version.CURRENT, null, null, 0, Info.alloc().toBuilder()
            .caps(Flags.MSG).build()).get(0);

        assertEquals(0, notFree.caps() & Flags.SOURCE, Flags.print(notFree.caps()));
        assertEquals(Flags.SOURCE, requested.caps() & Flags.SOURCE);
        assertEquals(Flags.SOURCE | Flags.LOCAL_COMM, free.caps() & Flags.SECONDARY_CAPS, Flags.print(free.caps()));
    }

    @Test
    void shouldNeverReportPrimaryCapsOrCapsTheProviderLacksThroughItsFreeCaps()
    {
        // a provider calling every bit free still enables only the requested primary cap and only caps it has
        final Discovery allFree = new Discovery(List.of(TestProviders.variant("allfree", b -> b, -1L)));
        final Info info = allFree.getInfo(Version.CURRENT, null, null, 0, Info.alloc().toBuilder()
            .caps(Flags.TAGGED).build()).get(0);

        assertEquals(Flags.TAGGED, info.caps() & Flags.PRIMARY_CAPS, Flags.print(info.caps()));
        assertEquals(Flags.SEND | Flags.RECV, info.caps() & Flags.PRIMARY_MODIFIERS, Flags.print(info.caps()));
        assertEquals(TestProviders.ALPHA_CAPS & Flags.SECONDARY_CAPS, info.caps() & Flags.SECONDARY_CAPS);
        assertEquals(0, info.caps() & (Flags.RMA_EVENT | Flags.SHARED_AV | Flags.TRIGGER));
    }

    @Test
    void shouldAssumeAllRelevantModifiersWhenNoneIsRequested()
    {
        final Info tagged = getInfo(null, null, 0, alphaRdmHints(b -> b.caps(Flags.TAGGED))).get(0);
        final Info rma = getInfo(null, null, 0, alphaRdmHints(b -> b.caps(Flags.RMA))).get(0);
        final Info both = getInfo(null, null, 0, alphaRdmHints(b -> b.caps(Flags.MSG | Flags.RMA))).get(0);

        assertEquals(Flags.SEND | Flags.RECV, tagged.caps() & Flags.PRIMARY_MODIFIERS);
        final long rmaDirections = Flags.READ | Flags.WRITE | Flags.REMOTE_READ | Flags.REMOTE_WRITE;
        assertEquals(rmaDirections, rma.caps() & Flags.PRIMARY_MODIFIERS);
        assertEquals(Flags.PRIMARY_MODIFIERS, both.caps() & Flags.PRIMARY_MODIFIERS);
    }

    @Test
    void shouldRestrictPrimaryCapWithModifier()
    {
        final Info info = getInfo(null, null, 0, alphaRdmHints(b -> b.caps(Flags.MSG | Flags.SEND))).get(0);
        // a modifier restricts only its own class: RMA without an RMA modifier keeps all RMA directions
        final Info mixed = getInfo(null, null, 0, alphaRdmHints(b -> b.caps(Flags.MSG | Flags.SEND | Flags.RMA)))
            .get(0);

        assertEquals(Flags.SEND, info.caps() & Flags.PRIMARY_MODIFIERS);
        assertEquals(0, info.caps() & Flags.RECV);
        assertEquals(Flags.SEND | Flags.READ | Flags.WRITE | Flags.REMOTE_READ | Flags.REMOTE_WRITE,
            mixed.caps() & Flags.PRIMARY_MODIFIERS);
    }

    @Test
    void shouldEnableNoPrimaryCapWhenHintNamesOnlySecondaryCaps()
    {
        // "primary capabilities must explicitly be requested": a hint naming none enables none
        final Info info = getInfo(null, null, 0, alphaRdmHints(b -> b.caps(Flags.MULTI_RECV))).get(0);

        assertEquals(0, info.caps() & (Flags.PRIMARY_CAPS | Flags.PRIMARY_MODIFIERS), Flags.print(info.caps()));
        assertTrue((info.caps() & Flags.MULTI_RECV) != 0);
    }

    @Test
    void shouldReportEveryProviderCapWhenTheHintCapsAreZero()
    {
        final Info info = getInfo(null, null, 0, alphaRdmHints(b -> b)).get(0);

        assertEquals(TestProviders.ALPHA_CAPS, info.caps());
    }

    @Test
    void shouldReportInprocSourceAndLocalCommunicationUnrequested()
    {
        final Discovery inproc = new Discovery(List.of(new io.jfabric.provider.inproc.InprocProvider()));

        final Info info = inproc.getInfo(Version.CURRENT, null, null, 0, Info.alloc().toBuilder().caps(Flags.TAGGED)
            .epAttr(EpAttr.builder().type(EndpointType.RDM).build()).build()).get(0);

        assertEquals(Flags.TAGGED | Flags.SEND | Flags.RECV, info.caps() & (Flags.PRIMARY_CAPS |
            Flags.PRIMARY_MODIFIERS), Flags.print(info.caps()));
        assertEquals(Flags.SOURCE | Flags.LOCAL_COMM | Flags.MULTI_RECV | Flags.FENCE | Flags.TRIGGER | Flags.SHARED_AV,
            info.caps() & Flags.SECONDARY_CAPS, Flags.print(info.caps()));
    }

    @Test
    void shouldRefuseRequestedSecondaryCapTheProviderLacks()
    {
        assertEquals(Errno.ENODATA, errnoOf(() -> getInfo(null, null, 0, alphaRdmHints(b -> b.caps(Flags.MSG |
            Flags.RMA_EVENT)))));
    }

    // - Output attributes are >= the requested values; results ordered best-performing first.

    @Test
    void shouldReturnOutputAttributesAtLeastTheRequestedValues()
    {
        final Info info = getInfo(null, null, 0, alphaRdmHints(b -> b
            .txAttr(TxAttr.builder().size(10).injectSize(8).iovLimit(2).build())
            .rxAttr(RxAttr.builder().size(10).build())
            .domainAttr(DomainAttr.builder().cqDataSize(4).cqCnt(2).build())
            .epAttr(EpAttr.builder().type(EndpointType.RDM).maxMsgSize(100).build()))).get(0);

        assertTrue(info.txAttr().size() >= 10);
        assertTrue(info.txAttr().injectSize() >= 8);
        assertTrue(info.txAttr().iovLimit() >= 2);
        assertTrue(info.rxAttr().size() >= 10);
        assertTrue(info.domainAttr().cqDataSize() >= 4);
        assertTrue(info.domainAttr().cqCnt() >= 2);
        assertTrue(info.epAttr().maxMsgSize() >= 100);
    }

    @Test
    void shouldOrderResultsBestPerformingFirst()
    {
        final List<Info> infos = getInfo(null, null, 0, hints(b -> b.caps(Flags.TAGGED)));

        assertEquals(List.of("alpha", "beta", "gamma", "gamma"), providersOf(infos));
        assertEquals(EndpointType.RDM, infos.get(2).epAttr().type());
        assertEquals(EndpointType.DGRAM, infos.get(3).epAttr().type());
    }

    // - FI_ADDR_STR addresses: format://node:service/...?key=value and the gni form; a string node with a
    //   non-null service is refused.

    @Test
    void shouldResolveSockaddrAddressString()
    {
        final List<Info> infos = getInfo("fi_sockaddr_in://127.0.0.1:7471", null, 0, hints(b -> b));

        assertEquals(List.of("alpha", "alpha"), providersOf(infos));
        final InetSocketAddress dest = SockAddr.decode(infos.get(0).destAddr());
        assertEquals("127.0.0.1", dest.getAddress().getHostAddress());
        assertEquals(7471, dest.getPort());
    }

    @Test
    void shouldResolveAddressStringAsSourceWithFiSource()
    {
        final Info info = getInfo("fi_sockaddr://127.0.0.2:80", null, Flags.SOURCE, alphaRdmHints(b -> b)).get(0);

        final InetSocketAddress src = SockAddr.decode(info.srcAddr());
        assertEquals("127.0.0.2", src.getAddress().getHostAddress());
        assertEquals(80, src.getPort());
        assertNull(info.destAddr());
    }

    @Test
    void shouldResolveProviderSpecificAddressStringOnlyAtThatProvider()
    {
        final List<Info> infos = getInfo("fi_beta://node7:12?qos=3", null, 0, hints(b -> b));

        assertEquals(List.of("beta"), providersOf(infos));
        assertEquals("fi_beta://node7:12?qos=3", new String(infos.get(0).destAddr(), StandardCharsets.UTF_8));
    }

    @Test
    void shouldResolveGniAddressStringIntoGniAddress()
    {
        final List<Info> infos = getInfo("gni;node1;7000;1;0x2a;0x5;0;0;0xbeef;1;0", null, 0, hints(b -> b));

        assertEquals(List.of("gamma", "gamma"), providersOf(infos));
        assertArrayEquals(new byte[] { 0x2a, 0, 0, 0, 5, 0, 0, 0 }, infos.get(0).destAddr());
    }

    @Test
    void shouldRefuseAddressStringNodeWithService()
    {
        assertEquals(Errno.EINVAL, errnoOf(() -> getInfo("fi_sockaddr_in://127.0.0.1:7471", "7471", 0, null)));
    }

    @Test
    void shouldAnswerEnodataForAddressStringNoProviderUnderstands()
    {
        assertEquals(Errno.ENODATA, errnoOf(() -> getInfo("fi_shm://ring0", null, 0, Info.alloc())));
    }

    // - Hint addresses and handle are carried into the output.

    @Test
    void shouldCarryHintAddressesAndHandleIntoTheOutput()
    {
        final Object handle = new Object();
        final byte[] dest = SockAddr.encode(InetAddress.getLoopbackAddress(), 4242);
        final Info info = getInfo(null, null, 0, alphaRdmHints(b -> b.addrFormat(AddressFormat.SOCKADDR_IN)
            .destAddr(dest).handle(handle))).get(0);

        assertArrayEquals(dest, info.destAddr());
        assertTrue(info.handle() == handle);
    }

    // - Provider name filters as libfabric's: a ';' list, '^' excludes.

    @Test
    void shouldFilterProvidersByNameListAndExclusion()
    {
        final Info list = hints(b -> b.fabricAttr(FabricAttr.builder().provName("gamma;alpha").build()));
        final Info exclude = hints(b -> b.fabricAttr(FabricAttr.builder().provName("^alpha").build()));

        assertEquals(List.of("alpha", "alpha", "gamma", "gamma"), providersOf(getInfo(null, null, 0, list)));
        assertEquals(List.of("beta", "gamma", "gamma"), providersOf(getInfo(null, null, 0, exclude)));
    }

    @Test
    void shouldLeaveOutProviderWhoseInfosFailAndKeepTheOthers()
    {
        final Discovery withBroken = new Discovery(List.of(TestProviders.alpha(),
            new TestProviders.FixedProvider("broken", Version.of(1, 0), 1, null)
            {
                @Override
                public List<Info> infos()
                {
                    throw new IllegalStateException("device missing");
                }
            }));

        final List<Info> infos = withBroken.getInfo(Version.CURRENT, null, null, 0, null);

        assertEquals(List.of("alpha", "alpha"), providersOf(infos));
    }

    @Test
    void shouldDropProviderThatCannotParseTheNode()
    {
        // gamma's parser fails on a non-numeric device address: gamma drops out, no exception escapes
        assertEquals(Errno.ENODATA, errnoOf(() -> getInfo("gni;n;1;1;zz;0x5;0;0;0;1;0", null, 0, hints(b -> b))));
    }

    @Test
    void shouldMatchFabricAndDomainNamesIgnoringCase()
    {
        final List<Info> infos = getInfo(null, null, 0, hint(b -> b
            .fabricAttr(FabricAttr.builder().name("ALPHA-Fabric").build())
            .domainAttr(DomainAttr.builder().name("Alpha0").build())));

        assertEquals(List.of("alpha", "alpha"), providersOf(infos));
    }

    @Test
    void shouldRefuseProviderVersionNewerThanTheProviders()
    {
        final Info same = hint(b -> b.fabricAttr(FabricAttr.builder().provName("alpha")
            .provVersion(Version.of(2, 3)).build()));
        final Info newer = hint(b -> b.fabricAttr(FabricAttr.builder().provName("alpha")
            .provVersion(Version.of(2, 4)).build()));

        assertEquals(2, getInfo(null, null, 0, same).size());
        assertEquals(Errno.ENODATA, errnoOf(() -> getInfo(null, null, 0, newer)));
    }

    @Test
    void shouldSayNoProviderIsRegisteredWhenThereIsNone()
    {
        final FabricException ex = assertThrows(FabricException.class,
            () -> new Discovery(List.of()).getInfo(Version.CURRENT, null, null, 0, null));

        assertEquals(Errno.ENODATA, ex.errno());
        assertTrue(ex.getMessage().contains("no provider is registered"), ex.getMessage());
    }

    @Test
    void shouldFindServiceLoadedProviderThroughFabricGetInfo()
    {
        final List<Info> infos = Fabric.getInfo(Version.CURRENT, null, null, 0, Info.alloc().toBuilder()
            .mode(Mode.CONTEXT2)
            .fabricAttr(FabricAttr.builder().provName(ServiceLoadedTestProvider.NAME).build())
            .build());

        assertEquals(1, infos.size());
        assertEquals(EndpointType.SOCK_DGRAM, infos.get(0).epAttr().type());
        assertTrue(Fabric.providers().stream().anyMatch(p -> ServiceLoadedTestProvider.NAME.equals(p.name())));
        assertFalse(infos.get(0).fabricAttr().provVersion().equals(Version.of(0, 0)));
    }
}
