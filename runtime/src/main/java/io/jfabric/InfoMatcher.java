package io.jfabric;

import io.jfabric.spi.Provider;

/**
 * The one place where a provider's info is checked against an application's hints and turned into an
 * output info, as libfabric's util layer does it ({@code ofi_check_info} and {@code ofi_alter_info}); no
 * provider repeats this logic.
 * <p>
 * Rules (fi_getinfo(3)): a non-zero hint must be met, a zero hint is a wildcard, except {@code mode}
 * where zero means the application supports no mode; maxima are met when the hint is at most the
 * provider's value (compared unsigned, so {@code SIZE_MAX} is unlimited); bit sets (caps, orders,
 * op flags, tag format) are met when the hint is a subset.
 * <p>
 * Stateless and thread-safe. Control path only.
 */
final class InfoMatcher
{
    private static final long MSG_DIRECTIONS = Flags.SEND | Flags.RECV;
    private static final long RMA_DIRECTIONS = Flags.READ | Flags.WRITE | Flags.REMOTE_READ | Flags.REMOTE_WRITE;
    /** Every bit some mr_mode defines; hints' other bits are ignored. */
    private static final long KNOWN_MR_MODE = (MrMode.COLLECTIVE << 1) - 1;

    private InfoMatcher()
    {
    }

    /**
     * Checks a provider info against hints.
     *
     * @param prov  the provider's info, with its maximum attributes and required modes.
     * @param hints the hints, or null for none.
     * @param api   the API version requested (the mr_mode rules differ before 1.5).
     * @return null when the info satisfies the hints, else why not (for diagnostics).
     */
    static String mismatch(final Info prov, final Info hints, final Version api)
    {
        if (hints == null)
        {
            return null;
        }
        final String fabric = checkFabric(prov.fabricAttr(), hints.fabricAttr());
        if (fabric != null)
        {
            return fabric;
        }
        final long missingCaps = hints.caps() & ~prov.caps();
        if (missingCaps != 0)
        {
            return "caps not supported: " + Flags.print(missingCaps);
        }
        // A zero mode hint means the application supports no mode: a provider needing any drops out.
        final long missingMode = prov.mode() & ~hints.mode();
        if (missingMode != 0)
        {
            return "provider requires mode " + Mode.print(missingMode);
        }
        if (!acceptsAddressFormat(prov.addrFormat(), hints.addrFormat()))
        {
            return "address format " + hints.addrFormat().fiName() + " not supported (" +
                prov.addrFormat().fiName() + ")";
        }
        String r = checkEp(prov.epAttr(), hints.epAttr(), prov.domainAttr());
        if (r == null)
        {
            r = checkDomain(prov.domainAttr(), hints.domainAttr(), hints.mode(), api);
        }
        if (r == null)
        {
            r = checkTx(prov.txAttr(), hints.txAttr(), hints.mode());
        }
        if (r == null)
        {
            r = checkRx(prov.rxAttr(), hints.rxAttr(), hints.mode());
        }
        return r;
    }

    /**
     * Builds the output info for a provider info that passed {@link #mismatch}, with the default free secondary
     * caps ({@link Provider#DEFAULT_FREE_SECONDARY_CAPS}): caps as {@link #selectCaps(long, long, long)} chooses
     * them, only the modes the provider needs, the requested threading/progress/resource/AV choices, the address
     * format of {@link #outputAddressFormat}, and the provider's values for every maximum (so every output
     * attribute is at least the requested one).
     *
     * @param prov  the provider info (with prov_name and prov_version filled).
     * @param hints the hints, or null.
     * @param api   the API version requested.
     * @return the output info, without addresses.
     */
    static Info alter(final Info prov, final Info hints, final Version api)
    {
        return alter(prov, hints, api, Provider.DEFAULT_FREE_SECONDARY_CAPS);
    }

    /**
     * As {@link #alter(Info, Info, Version)} with the secondary caps the provider reports unrequested.
     *
     * @param prov      the provider info (with prov_name and prov_version filled).
     * @param hints     the hints, or null.
     * @param api       the API version requested.
     * @param freeCaps  the provider's {@link Provider#freeSecondaryCaps()}.
     * @return the output info, without addresses.
     */
    static Info alter(final Info prov, final Info hints, final Version api, final long freeCaps)
    {
        final Info.Builder out = prov.toBuilder()
            .srcAddr(null)
            .destAddr(null)
            .fabricAttr(prov.fabricAttr().toBuilder().apiVersion(api).build());
        if (hints == null)
        {
            out.txAttr(prov.txAttr().toBuilder().caps(prov.txAttr().caps() & Flags.TX_ATTR_CAPS).build())
                .rxAttr(prov.rxAttr().toBuilder().caps(prov.rxAttr().caps() & Flags.RX_ATTR_CAPS).build());
            if (!api.atLeast(Version.of(1, 5)))
            {
                // Before API 1.5 mr_mode is FI_MR_BASIC or FI_MR_SCALABLE.
                out.domainAttr(prov.domainAttr().toBuilder()
                    .mrMode(outputMrMode(prov.domainAttr().mrMode(), 0, 0, api)).build());
            }
            return out.build();
        }
        final long caps = selectCaps(prov.caps(), hints.caps(), freeCaps);
        out.caps(caps)
            .mode(prov.mode() & hints.mode())
            .handle(hints.handle())
            .addrFormat(outputAddressFormat(prov.addrFormat(), hints.addrFormat()));

        final TxAttr pt = prov.txAttr();
        final TxAttr ht = hints.txAttr();
        // Queue sizes and limits: the requested value when one was given (it is within the maximum), else
        // the provider's; either way at least what was asked.
        out.txAttr(pt.toBuilder()
            .caps((ht.caps() != 0 ? ht.caps() : caps) & pt.caps() & Flags.TX_ATTR_CAPS)
            .opFlags(ht.opFlags())
            .injectSize(requested(ht.injectSize(), pt.injectSize()))
            .size(requested(ht.size(), pt.size()))
            .iovLimit(requested(ht.iovLimit(), pt.iovLimit()))
            .rmaIovLimit(requested(ht.rmaIovLimit(), pt.rmaIovLimit()))
            .build());

        final RxAttr pr = prov.rxAttr();
        final RxAttr hr = hints.rxAttr();
        out.rxAttr(pr.toBuilder()
            .caps((hr.caps() != 0 ? hr.caps() : caps) & pr.caps() & Flags.RX_ATTR_CAPS)
            .opFlags(hr.opFlags())
            .size(requested(hr.size(), pr.size()))
            .iovLimit(requested(hr.iovLimit(), pr.iovLimit()))
            .build());

        final EpAttr pe = prov.epAttr();
        final EpAttr he = hints.epAttr();
        final EpAttr.Builder e = pe.toBuilder()
            .txCtxCnt(requested(he.txCtxCnt(), pe.txCtxCnt()))
            .rxCtxCnt(requested(he.rxCtxCnt(), pe.rxCtxCnt()));
        if (he.authKey() != null)
        {
            e.authKey(he.authKey());
        }
        out.epAttr(e.build());

        final DomainAttr pd = prov.domainAttr();
        final DomainAttr hd = hints.domainAttr();
        final DomainAttr.Builder d = pd.toBuilder()
            .domain(hd.domain())
            .threading(hd.threading() != Threading.UNSPEC ? hd.threading() : pd.threading())
            .controlProgress(hd.controlProgress() != Progress.UNSPEC ? hd.controlProgress() : pd.controlProgress())
            .dataProgress(hd.dataProgress() != Progress.UNSPEC ? hd.dataProgress() : pd.dataProgress())
            .resourceMgmt(hd.resourceMgmt() != ResourceMgmt.UNSPEC ? hd.resourceMgmt() : pd.resourceMgmt())
            .avType(hd.avType() != AvType.UNSPEC ? hd.avType() : pd.avType())
            .mrMode(outputMrMode(pd.mrMode(), hd.mrMode(), hints.mode(), api))
            .mode(pd.mode() & effectiveMode(hd.mode(), hints.mode()));
        if (hd.authKey() != null)
        {
            d.authKey(hd.authKey());
        }
        out.domainAttr(d.build());
        return out.build();
    }

    /**
     * Capability selection with the default free secondary caps; see {@link #selectCaps(long, long, long)}.
     *
     * @param provCaps the provider's caps.
     * @param hintCaps the requested caps.
     * @return the caps of the output info.
     */
    static long selectCaps(final long provCaps, final long hintCaps)
    {
        return selectCaps(provCaps, hintCaps, Provider.DEFAULT_FREE_SECONDARY_CAPS);
    }

    /**
     * Capability selection, as fi_getinfo(3) words it. A zero hint is a wildcard: everything the provider has.
     * Otherwise: primary caps exactly as requested ("a provider must enable support for only those primary
     * capabilities which were selected", so none when the hint names none); primary modifiers as requested, and
     * where a requested primary cap has none of its own modifiers, all the provider's relevant ones ("if no
     * modifiers are specified for an applicable capability, all relevant modifiers are assumed": FI_SEND/FI_RECV
     * for FI_MSG/FI_TAGGED, FI_READ/FI_WRITE/FI_REMOTE_READ/FI_REMOTE_WRITE for FI_RMA/FI_ATOMIC); secondary caps as
     * requested plus those the provider reports at no cost ("a provider may optionally report non-selected
     * secondary capabilities if doing so would not compromise performance or security").
     *
     * @param provCaps the provider's caps (the hint is already known to be a subset).
     * @param hintCaps the requested caps.
     * @param freeCaps the secondary caps the provider gives at no cost; other bits in it are ignored.
     * @return the caps of the output info.
     */
    static long selectCaps(final long provCaps, final long hintCaps, final long freeCaps)
    {
        if (hintCaps == 0)
        {
            return provCaps;
        }
        final long primary = hintCaps & Flags.PRIMARY_CAPS;
        long modifiers = hintCaps & Flags.PRIMARY_MODIFIERS;
        if ((primary & (Flags.MSG | Flags.TAGGED)) != 0 && (modifiers & MSG_DIRECTIONS) == 0)
        {
            modifiers |= provCaps & MSG_DIRECTIONS;
        }
        if ((primary & (Flags.RMA | Flags.ATOMIC)) != 0 && (modifiers & RMA_DIRECTIONS) == 0)
        {
            modifiers |= provCaps & RMA_DIRECTIONS;
        }
        final long secondary = (hintCaps | (freeCaps & provCaps)) & Flags.SECONDARY_CAPS;
        return primary | modifiers | secondary | (hintCaps & ~Flags.CAPS_MASK);
    }

    /**
     * Whether a provider's address format serves an application's (libfabric's rule): either side
     * {@code FI_FORMAT_UNSPEC} matches; a {@code FI_SOCKADDR} provider takes IPv4 and IPv6 ({@code FI_SOCKADDR},
     * {@code FI_SOCKADDR_IN}, {@code FI_SOCKADDR_IN6}); a {@code FI_SOCKADDR_IN} provider takes only IPv4
     * ({@code FI_SOCKADDR} or {@code FI_SOCKADDR_IN}); a {@code FI_SOCKADDR_IN6} provider takes IPv6 and IPv4 (an
     * IPv4 address maps into IPv6); a {@code FI_SOCKADDR_IB} provider takes every socket format; any other format
     * only itself.
     *
     * @param prov the provider's format.
     * @param hint the requested format.
     * @return true when they match.
     */
    static boolean acceptsAddressFormat(final AddressFormat prov, final AddressFormat hint)
    {
        if (hint == AddressFormat.UNSPEC || prov == AddressFormat.UNSPEC)
        {
            return true;
        }
        switch (prov)
        {
            case SOCKADDR:
            case SOCKADDR_IN6:
                return hint == AddressFormat.SOCKADDR || hint == AddressFormat.SOCKADDR_IN ||
                    hint == AddressFormat.SOCKADDR_IN6;
            case SOCKADDR_IN:
                return hint == AddressFormat.SOCKADDR || hint == AddressFormat.SOCKADDR_IN;
            case SOCKADDR_IB:
                return hint == AddressFormat.SOCKADDR || hint == AddressFormat.SOCKADDR_IN ||
                    hint == AddressFormat.SOCKADDR_IN6 || hint == AddressFormat.SOCKADDR_IB;
            default:
                return prov == hint;
        }
    }

    /**
     * The address format of an output info: the more specific of the provider's and the requested one. The
     * application's own format wins when it named one (other than the generic {@code FI_SOCKADDR}), since the
     * provider accepted it; otherwise the provider's.
     *
     * @param prov the provider's format.
     * @param hint the requested format (accepted by {@link #acceptsAddressFormat}).
     * @return the output format.
     */
    static AddressFormat outputAddressFormat(final AddressFormat prov, final AddressFormat hint)
    {
        if (prov == AddressFormat.UNSPEC)
        {
            return hint;
        }
        return hint == AddressFormat.UNSPEC || hint == AddressFormat.SOCKADDR ? prov : hint;
    }

    private static String checkFabric(final FabricAttr prov, final FabricAttr hint)
    {
        if (hint.provName() != null && !providerNameMatches(prov.provName(), hint.provName()))
        {
            return "provider name '" + prov.provName() + "' does not match '" + hint.provName() + "'";
        }
        if (hint.name() != null && !hint.name().equalsIgnoreCase(prov.name()))
        {
            return "fabric name '" + prov.name() + "' does not match '" + hint.name() + "'";
        }
        final Version wanted = hint.provVersion();
        if (wanted != null && (wanted.major() != 0 || wanted.minor() != 0) && prov.provVersion() != null &&
            wanted.compareTo(prov.provVersion()) > 0)
        {
            return "provider version " + wanted.major() + "." + wanted.minor() + " newer than " +
                prov.provVersion().major() + "." + prov.provVersion().minor();
        }
        return null;
    }

    /**
     * libfabric's provider-name filter: a {@code ;}-separated list of names (case-insensitive), or names
     * prefixed with {@code ^} to exclude them. A layered name {@code a;b} matches a hint naming either part.
     *
     * @param provName the provider's name.
     * @param hint     the filter.
     * @return true when the provider passes the filter.
     */
    static boolean providerNameMatches(final String provName, final String hint)
    {
        final String h = hint.trim();
        if (h.startsWith("^"))
        {
            for (final String n : h.substring(1).split("[;,]"))
            {
                if (n.trim().equalsIgnoreCase(provName))
                {
                    return false;
                }
            }
            return true;
        }
        for (final String n : h.split("[;,]"))
        {
            if (n.trim().equalsIgnoreCase(provName))
            {
                return true;
            }
        }
        return false;
    }

    private static String checkEp(final EpAttr prov, final EpAttr hint, final DomainAttr provDomain)
    {
        if (hint.type() != EndpointType.UNSPEC && hint.type() != prov.type())
        {
            return "endpoint type " + hint.type().fiName() + " not supported (" + prov.type().fiName() + ")";
        }
        if (hint.protocol() != 0 && hint.protocol() != prov.protocol())
        {
            return "protocol " + Protocol.name(hint.protocol()) + " not supported";
        }
        if (hint.protocolVersion() != 0 && Integer.compareUnsigned(hint.protocolVersion(), prov.protocolVersion()) > 0)
        {
            return "protocol_version " + hint.protocolVersion() + " above " + prov.protocolVersion();
        }
        String r = max("max_msg_size", hint.maxMsgSize(), prov.maxMsgSize());
        r = r != null ? r : max("max_order_raw_size", hint.maxOrderRawSize(), prov.maxOrderRawSize());
        r = r != null ? r : max("max_order_war_size", hint.maxOrderWarSize(), prov.maxOrderWarSize());
        r = r != null ? r : max("max_order_waw_size", hint.maxOrderWawSize(), prov.maxOrderWawSize());
        r = r != null ? r : contexts("tx_ctx_cnt", hint.txCtxCnt(), prov.txCtxCnt(), provDomain.maxEpStxCtx(),
            "shared transmit contexts", "max_ep_stx_ctx");
        r = r != null ? r : contexts("rx_ctx_cnt", hint.rxCtxCnt(), prov.rxCtxCnt(), provDomain.maxEpSrxCtx(),
            "shared receive contexts", "max_ep_srx_ctx");
        r = r != null ? r : subset("mem_tag_format", hint.memTagFormat(), prov.memTagFormat());
        return r;
    }

    /**
     * An endpoint's context count: at most the provider's, or {@link EpAttr#SHARED_CONTEXT}, which only a provider
     * that can share contexts (a non-zero {@code max_ep_stx_ctx} or {@code max_ep_srx_ctx}) meets.
     */
    private static String contexts(final String what, final long hint, final long prov, final long sharedMax,
        final String sharedWhat, final String sharedField)
    {
        if (hint == EpAttr.SHARED_CONTEXT && prov != EpAttr.SHARED_CONTEXT)
        {
            return sharedMax != 0 ? null : what + " FI_SHARED_CONTEXT: " + sharedWhat + " not supported (" +
                sharedField + " is 0)";
        }
        return max(what, hint, prov);
    }

    private static String checkDomain(
        final DomainAttr prov, final DomainAttr hint, final long infoMode, final Version api)
    {
        if (hint.name() != null && !hint.name().equalsIgnoreCase(prov.name()))
        {
            return "domain name '" + prov.name() + "' does not match '" + hint.name() + "'";
        }
        // Threading models ranked by the parallelism the provider must allow; UNSPEC on either side matches.
        if (hint.threading() != Threading.UNSPEC && prov.threading() != Threading.UNSPEC &&
            threadLevel(hint.threading()) < threadLevel(prov.threading()))
        {
            return "threading " + hint.threading().fiName() + " not supported (" + prov.threading().fiName() + ")";
        }
        String r = progress("control_progress", hint.controlProgress(), prov.controlProgress());
        r = r != null ? r : progress("data_progress", hint.dataProgress(), prov.dataProgress());
        if (r != null)
        {
            return r;
        }
        if (hint.resourceMgmt() == ResourceMgmt.ENABLED && prov.resourceMgmt() == ResourceMgmt.DISABLED)
        {
            return "resource_mgmt FI_RM_ENABLED not supported";
        }
        if (hint.avType() != AvType.UNSPEC && prov.avType() != AvType.UNSPEC && hint.avType() != prov.avType())
        {
            return "av_type " + hint.avType().fiName() + " not supported (" + prov.avType().fiName() + ")";
        }
        r = checkMrMode(prov.mrMode(), hint.mrMode(), infoMode, api);
        r = r != null ? r : max("mr_key_size", hint.mrKeySize(), prov.mrKeySize());
        r = r != null ? r : max("cq_data_size", hint.cqDataSize(), prov.cqDataSize());
        r = r != null ? r : max("cq_cnt", hint.cqCnt(), prov.cqCnt());
        r = r != null ? r : max("ep_cnt", hint.epCnt(), prov.epCnt());
        r = r != null ? r : max("tx_ctx_cnt", hint.txCtxCnt(), prov.txCtxCnt());
        r = r != null ? r : max("rx_ctx_cnt", hint.rxCtxCnt(), prov.rxCtxCnt());
        r = r != null ? r : max("max_ep_tx_ctx", hint.maxEpTxCtx(), prov.maxEpTxCtx());
        r = r != null ? r : max("max_ep_rx_ctx", hint.maxEpRxCtx(), prov.maxEpRxCtx());
        r = r != null ? r : max("max_ep_stx_ctx", hint.maxEpStxCtx(), prov.maxEpStxCtx());
        r = r != null ? r : max("max_ep_srx_ctx", hint.maxEpSrxCtx(), prov.maxEpSrxCtx());
        r = r != null ? r : max("cntr_cnt", hint.cntrCnt(), prov.cntrCnt());
        r = r != null ? r : max("mr_iov_limit", hint.mrIovLimit(), prov.mrIovLimit());
        r = r != null ? r : max("max_err_data", hint.maxErrData(), prov.maxErrData());
        r = r != null ? r : max("mr_cnt", hint.mrCnt(), prov.mrCnt());
        r = r != null ? r : max("max_ep_auth_key", hint.maxEpAuthKey(), prov.maxEpAuthKey());
        r = r != null ? r : subsetCaps("domain caps", hint.caps(), prov.caps());
        if (r == null)
        {
            final long missing = prov.mode() & ~effectiveMode(hint.mode(), infoMode);
            if (missing != 0)
            {
                r = "domain requires mode " + Mode.print(missing);
            }
        }
        return r;
    }

    private static String checkTx(final TxAttr prov, final TxAttr hint, final long infoMode)
    {
        // Caps fi_endpoint(3) does not list for this direction are ignored, as libfabric ignores them.
        String r = subsetCaps("tx caps", hint.caps() & Flags.TX_ATTR_CAPS, prov.caps());
        r = r != null ? r : requiredMode("tx", prov.mode(), effectiveMode(hint.mode(), infoMode));
        r = r != null ? r : subsetFlags("tx op_flags", hint.opFlags(), prov.opFlags());
        r = r != null ? r : subsetOrder("tx msg_order", hint.msgOrder(), prov.msgOrder(), true);
        r = r != null ? r : subsetOrder("tx comp_order", hint.compOrder(), prov.compOrder(), false);
        r = r != null ? r : max("inject_size", hint.injectSize(), prov.injectSize());
        r = r != null ? r : max("tx size", hint.size(), prov.size());
        r = r != null ? r : max("tx iov_limit", hint.iovLimit(), prov.iovLimit());
        r = r != null ? r : max("rma_iov_limit", hint.rmaIovLimit(), prov.rmaIovLimit());
        return r;
    }

    private static String checkRx(final RxAttr prov, final RxAttr hint, final long infoMode)
    {
        String r = subsetCaps("rx caps", hint.caps() & Flags.RX_ATTR_CAPS, prov.caps());
        r = r != null ? r : requiredMode("rx", prov.mode(), effectiveMode(hint.mode(), infoMode));
        r = r != null ? r : subsetFlags("rx op_flags", hint.opFlags(), prov.opFlags());
        r = r != null ? r : subsetOrder("rx msg_order", hint.msgOrder(), prov.msgOrder(), true);
        r = r != null ? r : subsetOrder("rx comp_order", hint.compOrder(), prov.compOrder(), false);
        r = r != null ? r : max("total_buffered_recv", hint.totalBufferedRecv(), prov.totalBufferedRecv());
        r = r != null ? r : max("rx size", hint.size(), prov.size());
        r = r != null ? r : max("rx iov_limit", hint.iovLimit(), prov.iovLimit());
        return r;
    }

    /**
     * Memory registration modes. A zero hint is a wildcard from API 1.5; before it, zero is FI_MR_UNSPEC (the
     * provider answers FI_MR_BASIC or FI_MR_SCALABLE). Bits no mr_mode defines are ignored, as libfabric ignores
     * them (fabtests ask for {@code ~(FI_MR_BASIC | FI_MR_SCALABLE)}). FI_MR_BASIC and FI_MR_SCALABLE are
     * exclusive and, from API 1.5, stand alone (combined with the 1.5 bits they are an invalid combination);
     * before API 1.5 only they are valid. A legacy mode is served only by a provider that has its semantics
     * ({@link #legacyMrMode}: FI_MR_BASIC needs virtual addresses and provider keys, FI_MR_SCALABLE offsets and
     * application keys); the output then carries exactly that mode ({@link #outputMrMode}). Otherwise, after
     * expanding FI_MR_BASIC into the bits it stands for (and counting the FI_LOCAL_MR mode bit as FI_MR_LOCAL),
     * every bit the provider requires must be one the application supports.
     */
    static String checkMrMode(final long provMode, final long requestedMode, final long infoMode, final Version api)
    {
        final long legacy = MrMode.BASIC | MrMode.SCALABLE;
        final long hintMode = requestedMode & KNOWN_MR_MODE;
        final long localMr = (infoMode & Mode.LOCAL_MR) != 0 ? MrMode.LOCAL : 0;
        if (hintMode == 0)
        {
            if (api.atLeast(Version.of(1, 5)) || 0 != legacyMrMode(provMode, localMr))
            {
                return null;
            }
            return "FI_MR_UNSPEC before API 1.5 needs FI_MR_BASIC or FI_MR_SCALABLE semantics; the provider has " +
                MrMode.print(provMode);
        }
        if ((hintMode & legacy) == legacy)
        {
            return "invalid mr_mode combination: FI_MR_BASIC | FI_MR_SCALABLE";
        }
        if (!api.atLeast(Version.of(1, 5)) && (hintMode & ~legacy) != 0)
        {
            return "mr_mode " + MrMode.print(hintMode & ~legacy) + " needs API 1.5 or later";
        }
        if ((hintMode & legacy) != 0 && (hintMode & ~legacy) != 0)
        {
            return "invalid mr_mode combination: " + MrMode.print(hintMode);
        }
        if ((hintMode & legacy) != 0 && (hintMode & legacyMrMode(provMode, localMr)) == 0)
        {
            return MrMode.print(hintMode) + " not supported: the provider's registrations are " +
                (0 == (expandMrMode(provMode) & (MrMode.VIRT_ADDR | MrMode.PROV_KEY)) ?
                "offsets with application keys (FI_MR_SCALABLE)" : "mr_mode " + MrMode.print(provMode));
        }
        final long missing = expandMrMode(provMode) & ~(expandMrMode(hintMode) | localMr);
        return missing == 0 ? null : "provider requires mr_mode " + MrMode.print(missing);
    }

    /**
     * The legacy mode whose semantics a provider's mr_mode has: FI_MR_BASIC when it addresses by virtual address
     * with provider keys and needs nothing beyond FI_MR_BASIC's bits (and FI_MR_LOCAL where the application has
     * FI_LOCAL_MR); FI_MR_SCALABLE when it takes offsets and application keys and needs nothing else; else 0.
     */
    static long legacyMrMode(final long provMode, final long localMr)
    {
        final long mode = expandMrMode(provMode) & ~localMr;
        if ((provMode & MrMode.SCALABLE) != 0 || 0 == mode)
        {
            return MrMode.SCALABLE;
        }
        final long basicKeys = MrMode.VIRT_ADDR | MrMode.PROV_KEY;
        return (mode & basicKeys) == basicKeys && (mode & ~MrMode.BASIC_MAP) == 0 ? MrMode.BASIC : 0;
    }

    /**
     * The mr_mode of an output info: the legacy mode the hints asked for (or, before API 1.5, the one FI_MR_UNSPEC
     * gets), else the provider's.
     */
    static long outputMrMode(final long provMode, final long requestedMode, final long infoMode, final Version api)
    {
        final long legacy = requestedMode & KNOWN_MR_MODE & (MrMode.BASIC | MrMode.SCALABLE);
        if (0 != legacy)
        {
            return legacy;
        }
        if (!api.atLeast(Version.of(1, 5)) && 0 == (requestedMode & KNOWN_MR_MODE))
        {
            return legacyMrMode(provMode, (infoMode & Mode.LOCAL_MR) != 0 ? MrMode.LOCAL : 0);
        }
        return provMode;
    }

    private static long expandMrMode(final long mode)
    {
        if ((mode & MrMode.BASIC) != 0)
        {
            return (mode & ~MrMode.BASIC) | MrMode.BASIC_MAP;
        }
        return mode & ~MrMode.SCALABLE;
    }

    /**
     * Parallelism a threading model asks of the provider, most first: SAFE, FID, ENDPOINT, COMPLETION,
     * DOMAIN. A provider at one level serves applications at its level or any later one.
     */
    static int threadLevel(final Threading threading)
    {
        switch (threading)
        {
            case SAFE:
                return 1;
            case FID:
                return 2;
            case ENDPOINT:
                return 3;
            case COMPLETION:
                return 4;
            case DOMAIN:
                return 5;
            default:
                return 6;
        }
    }

    private static long requested(final long hint, final long prov)
    {
        return hint != 0 ? hint : prov;
    }

    private static long effectiveMode(final long attrMode, final long infoMode)
    {
        return attrMode != 0 ? attrMode : infoMode;
    }

    private static String progress(final String what, final Progress hint, final Progress prov)
    {
        // An auto-progress provider also serves an application willing to drive progress itself.
        if (hint == Progress.AUTO && prov == Progress.MANUAL)
        {
            return what + " FI_PROGRESS_AUTO not supported (FI_PROGRESS_MANUAL)";
        }
        return null;
    }

    private static String requiredMode(final String what, final long provMode, final long hintMode)
    {
        final long missing = provMode & ~hintMode;
        return missing == 0 ? null : what + " requires mode " + Mode.print(missing);
    }

    private static String max(final String what, final long hint, final long prov)
    {
        return Long.compareUnsigned(hint, prov) > 0 ?
            what + " " + Long.toUnsignedString(hint) + " above the maximum " + Long.toUnsignedString(prov) : null;
    }

    private static String subset(final String what, final long hint, final long prov)
    {
        return (hint & ~prov) != 0 ?
            what + " 0x" + Long.toHexString(hint) + " beyond 0x" + Long.toHexString(prov) : null;
    }

    private static String subsetCaps(final String what, final long hint, final long prov)
    {
        return (hint & ~prov) != 0 ? what + " not supported: " + Flags.print(hint & ~prov) : null;
    }

    private static String subsetFlags(final String what, final long hint, final long prov)
    {
        return (hint & ~prov) != 0 ? what + " not supported: " + Flags.print(hint & ~prov) : null;
    }

    private static String subsetOrder(final String what, final long hint, final long prov, final boolean msg)
    {
        if ((hint & ~prov) == 0)
        {
            return null;
        }
        return what + " not supported: " + (msg ? MsgOrder.print(hint & ~prov) : CompOrder.print(hint & ~prov));
    }
}
