package io.jfabric;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Text forms of {@link Info}: the short {@code fi_info} listing, the {@code fi_tostr(FI_TYPE_INFO)} form
 * that {@code fi_info -v} prints, and JSON. The command line stays thin by using these.
 * <p>
 * Stateless and thread-safe. Control path only.
 */
public final class InfoFormat
{
    private static final String NL = "\n";

    private InfoFormat()
    {
    }

    /**
     * The short form {@code fi_info} prints for one info:
     * <pre>
     * provider: inproc
     *     fabric: inproc
     *     domain: inproc0
     *     version: 1.0
     *     type: FI_EP_RDM
     *     protocol: FI_PROTO_JFABRIC_INPROC
     * </pre>
     *
     * @param info the info.
     * @return the text, ending with a newline.
     */
    public static String summary(final Info info)
    {
        final FabricAttr f = info.fabricAttr();
        return "provider: " + f.provName() + NL +
            "    fabric: " + nullText(f.name()) + NL +
            "    domain: " + nullText(info.domainAttr().name()) + NL +
            "    version: " + version(f.provVersion()) + NL +
            "    type: " + info.epAttr().type().fiName() + NL +
            "    protocol: " + Protocol.name(info.epAttr().protocol()) + NL;
    }

    /**
     * The {@code fi_tostr(FI_TYPE_INFO)} form: every attribute, nested by structure, as {@code fi_info -v}
     * prints it.
     *
     * @param info the info.
     * @return the text, ending with a newline.
     */
    public static String verbose(final Info info)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("---").append(NL).append("fi_info:").append(NL);
        final String i1 = "    ";
        final String i2 = "        ";
        line(sb, i1, "caps", list(Flags.names(info.caps())));
        line(sb, i1, "mode", list(Mode.names(info.mode())));
        line(sb, i1, "addr_format", info.addrFormat().fiName());
        line(sb, i1, "src_addrlen", Integer.toString(info.srcAddrlen()));
        line(sb, i1, "dest_addrlen", Integer.toString(info.destAddrlen()));
        line(sb, i1, "src_addr", address(info.addrFormat(), info.srcAddr()));
        line(sb, i1, "dest_addr", address(info.addrFormat(), info.destAddr()));
        line(sb, i1, "handle", info.handle() == null ? "(nil)" : info.handle().toString());

        final TxAttr tx = info.txAttr();
        sb.append(i1).append("fi_tx_attr:").append(NL);
        line(sb, i2, "caps", list(Flags.names(tx.caps())));
        line(sb, i2, "mode", list(Mode.names(tx.mode())));
        line(sb, i2, "op_flags", list(Flags.names(tx.opFlags())));
        line(sb, i2, "msg_order", list(MsgOrder.names(tx.msgOrder())));
        line(sb, i2, "comp_order", list(compOrderNames(tx.compOrder())));
        line(sb, i2, "inject_size", size(tx.injectSize()));
        line(sb, i2, "size", size(tx.size()));
        line(sb, i2, "iov_limit", size(tx.iovLimit()));
        line(sb, i2, "rma_iov_limit", size(tx.rmaIovLimit()));
        line(sb, i2, "tclass", "0x" + Long.toHexString(tx.tclass()));

        final RxAttr rx = info.rxAttr();
        sb.append(i1).append("fi_rx_attr:").append(NL);
        line(sb, i2, "caps", list(Flags.names(rx.caps())));
        line(sb, i2, "mode", list(Mode.names(rx.mode())));
        line(sb, i2, "op_flags", list(Flags.names(rx.opFlags())));
        line(sb, i2, "msg_order", list(MsgOrder.names(rx.msgOrder())));
        line(sb, i2, "comp_order", list(compOrderNames(rx.compOrder())));
        line(sb, i2, "total_buffered_recv", size(rx.totalBufferedRecv()));
        line(sb, i2, "size", size(rx.size()));
        line(sb, i2, "iov_limit", size(rx.iovLimit()));

        final EpAttr ep = info.epAttr();
        sb.append(i1).append("fi_ep_attr:").append(NL);
        line(sb, i2, "type", ep.type().fiName());
        line(sb, i2, "protocol", Protocol.name(ep.protocol()));
        line(sb, i2, "protocol_version", Integer.toUnsignedString(ep.protocolVersion()));
        line(sb, i2, "max_msg_size", size(ep.maxMsgSize()));
        line(sb, i2, "msg_prefix_size", size(ep.msgPrefixSize()));
        line(sb, i2, "max_order_raw_size", size(ep.maxOrderRawSize()));
        line(sb, i2, "max_order_war_size", size(ep.maxOrderWarSize()));
        line(sb, i2, "max_order_waw_size", size(ep.maxOrderWawSize()));
        line(sb, i2, "mem_tag_format", "0x" + String.format(Locale.ROOT, "%016x", ep.memTagFormat()));
        line(sb, i2, "tx_ctx_cnt", size(ep.txCtxCnt()));
        line(sb, i2, "rx_ctx_cnt", size(ep.rxCtxCnt()));
        line(sb, i2, "auth_key_size", Integer.toString(length(ep.authKey())));

        final DomainAttr d = info.domainAttr();
        sb.append(i1).append("fi_domain_attr:").append(NL);
        line(sb, i2, "domain", d.domain() == null ? "0x0" : d.domain().toString());
        line(sb, i2, "name", nullText(d.name()));
        line(sb, i2, "threading", d.threading().fiName());
        line(sb, i2, "control_progress", d.controlProgress().fiName());
        line(sb, i2, "data_progress", d.dataProgress().fiName());
        line(sb, i2, "resource_mgmt", d.resourceMgmt().fiName());
        line(sb, i2, "av_type", d.avType().fiName());
        line(sb, i2, "mr_mode", list(MrMode.names(d.mrMode())));
        line(sb, i2, "mr_key_size", size(d.mrKeySize()));
        line(sb, i2, "cq_data_size", size(d.cqDataSize()));
        line(sb, i2, "cq_cnt", size(d.cqCnt()));
        line(sb, i2, "ep_cnt", size(d.epCnt()));
        line(sb, i2, "tx_ctx_cnt", size(d.txCtxCnt()));
        line(sb, i2, "rx_ctx_cnt", size(d.rxCtxCnt()));
        line(sb, i2, "max_ep_tx_ctx", size(d.maxEpTxCtx()));
        line(sb, i2, "max_ep_rx_ctx", size(d.maxEpRxCtx()));
        line(sb, i2, "max_ep_stx_ctx", size(d.maxEpStxCtx()));
        line(sb, i2, "max_ep_srx_ctx", size(d.maxEpSrxCtx()));
        line(sb, i2, "cntr_cnt", size(d.cntrCnt()));
        line(sb, i2, "mr_iov_limit", size(d.mrIovLimit()));
        line(sb, i2, "caps", list(Flags.names(d.caps())));
        line(sb, i2, "mode", list(Mode.names(d.mode())));
        line(sb, i2, "auth_key_size", Integer.toString(length(d.authKey())));
        line(sb, i2, "max_err_data", size(d.maxErrData()));
        line(sb, i2, "mr_cnt", size(d.mrCnt()));
        line(sb, i2, "max_ep_auth_key", size(d.maxEpAuthKey()));
        line(sb, i2, "tclass", "0x" + Long.toHexString(d.tclass()));

        final FabricAttr f = info.fabricAttr();
        sb.append(i1).append("fi_fabric_attr:").append(NL);
        line(sb, i2, "name", nullText(f.name()));
        line(sb, i2, "prov_name", nullText(f.provName()));
        line(sb, i2, "prov_version", version(f.provVersion()));
        line(sb, i2, "api_version", version(f.apiVersion()));

        final Nic nic = info.nic();
        if (nic == null)
        {
            line(sb, i1, "nic", "(nil)");
        }
        else
        {
            sb.append(i1).append("nic:").append(NL);
            line(sb, i2, "device_name", nullText(nic.deviceName()));
            line(sb, i2, "device_id", nullText(nic.deviceId()));
            line(sb, i2, "device_version", nullText(nic.deviceVersion()));
            line(sb, i2, "vendor_id", nullText(nic.vendorId()));
            line(sb, i2, "driver", nullText(nic.driver()));
            line(sb, i2, "firmware", nullText(nic.firmware()));
            line(sb, i2, "bus_type", nullText(nic.busType()));
            line(sb, i2, "bus_address", nullText(nic.busAddress()));
            line(sb, i2, "link_address", nullText(nic.linkAddress()));
            line(sb, i2, "mtu", size(nic.mtu()));
            line(sb, i2, "speed", size(nic.speed()));
            line(sb, i2, "link_state", nullText(nic.linkState()));
            line(sb, i2, "network_type", nullText(nic.networkType()));
        }
        return sb.toString();
    }

    /**
     * Prints an address as {@code fi_tostr} does: socket formats as {@code fi_sockaddr_in://host:port},
     * {@code FI_ADDR_STR} as its text, other formats as {@code fi_addr_gni://0x...} hex.
     *
     * @param format the address format.
     * @param addr   the address bytes, or null.
     * @return the text; {@code (null)} when absent.
     */
    public static String address(final AddressFormat format, final byte[] addr)
    {
        if (addr == null)
        {
            return "(null)";
        }
        switch (format)
        {
            case SOCKADDR:
            case SOCKADDR_IN:
            case SOCKADDR_IN6:
                return SockAddr.toAddressString(addr);
            case STR:
                return new String(addr, StandardCharsets.UTF_8);
            default:
                return format.fiName().toLowerCase(Locale.ROOT) + "://" + SockAddr.hex(addr);
        }
    }

    /**
     * Completion orders as fi_tostr names them: FI_ORDER_NONE when the strict bits are clear, else
     * FI_ORDER_STRICT when all are set, then FI_ORDER_DATA.
     *
     * @param order the {@code comp_order} bits.
     * @return the names.
     */
    public static List<String> compOrderNames(final long order)
    {
        final List<String> names = new ArrayList<>();
        if ((order & CompOrder.STRICT) == 0)
        {
            names.add("FI_ORDER_NONE");
        }
        else if ((order & CompOrder.STRICT) == CompOrder.STRICT)
        {
            names.add("FI_ORDER_STRICT");
        }
        if ((order & CompOrder.DATA) != 0)
        {
            names.add("FI_ORDER_DATA");
        }
        return names;
    }

    private static void line(final StringBuilder sb, final String indent, final String key, final String value)
    {
        sb.append(indent).append(key).append(": ").append(value).append(NL);
    }

    private static String list(final List<String> names)
    {
        return names.isEmpty() ? "[  ]" : "[ " + String.join(", ", names) + " ]";
    }

    private static String size(final long v)
    {
        return Long.toUnsignedString(v);
    }

    private static String version(final Version v)
    {
        return v == null ? "(null)" : v.major() + "." + v.minor();
    }

    private static String nullText(final String s)
    {
        return s == null ? "(null)" : s;
    }

    private static int length(final byte[] b)
    {
        return b == null ? 0 : b.length;
    }
}
