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
     * JSON for a list of infos: an array of objects with the {@code fi_info} field names, nested by
     * attribute structure; bit sets as arrays of names, enums as their names, addresses as text.
     *
     * @param infos the infos.
     * @return the JSON text.
     */
    public static String json(final List<Info> infos)
    {
        final StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < infos.size(); i++)
        {
            sb.append(i == 0 ? "\n  " : ",\n  ");
            json(sb, infos.get(i));
        }
        return sb.append(infos.isEmpty() ? "]" : "\n]").append(NL).toString();
    }

    private static void json(final StringBuilder sb, final Info info)
    {
        final Obj o = new Obj(sb);
        o.names("caps", Flags.names(info.caps())).names("mode", Mode.names(info.mode()))
            .str("addr_format", info.addrFormat().fiName())
            .str("src_addr", info.srcAddr() == null ? null : address(info.addrFormat(), info.srcAddr()))
            .str("dest_addr", info.destAddr() == null ? null : address(info.addrFormat(), info.destAddr()));
        final TxAttr tx = info.txAttr();
        o.open("tx_attr").names("caps", Flags.names(tx.caps())).names("mode", Mode.names(tx.mode()))
            .names("op_flags", Flags.names(tx.opFlags())).names("msg_order", MsgOrder.names(tx.msgOrder()))
            .names("comp_order", compOrderNames(tx.compOrder())).num("inject_size", tx.injectSize())
            .num("size", tx.size()).num("iov_limit", tx.iovLimit()).num("rma_iov_limit", tx.rmaIovLimit())
            .num("tclass", tx.tclass()).close();
        final RxAttr rx = info.rxAttr();
        o.open("rx_attr").names("caps", Flags.names(rx.caps())).names("mode", Mode.names(rx.mode()))
            .names("op_flags", Flags.names(rx.opFlags())).names("msg_order", MsgOrder.names(rx.msgOrder()))
            .names("comp_order", compOrderNames(rx.compOrder()))
            .num("total_buffered_recv", rx.totalBufferedRecv()).num("size", rx.size())
            .num("iov_limit", rx.iovLimit()).close();
        final EpAttr ep = info.epAttr();
        o.open("ep_attr").str("type", ep.type().fiName()).str("protocol", Protocol.name(ep.protocol()))
            .num("protocol_version", ep.protocolVersion() & 0xFFFFFFFFL).num("max_msg_size", ep.maxMsgSize())
            .num("msg_prefix_size", ep.msgPrefixSize()).num("max_order_raw_size", ep.maxOrderRawSize())
            .num("max_order_war_size", ep.maxOrderWarSize()).num("max_order_waw_size", ep.maxOrderWawSize())
            .str("mem_tag_format", "0x" + Long.toHexString(ep.memTagFormat())).num("tx_ctx_cnt", ep.txCtxCnt())
            .num("rx_ctx_cnt", ep.rxCtxCnt()).num("auth_key_size", length(ep.authKey())).close();
        final DomainAttr d = info.domainAttr();
        o.open("domain_attr").str("name", d.name()).str("threading", d.threading().fiName())
            .str("control_progress", d.controlProgress().fiName()).str("data_progress", d.dataProgress().fiName())
            .str("resource_mgmt", d.resourceMgmt().fiName()).str("av_type", d.avType().fiName())
            .names("mr_mode", MrMode.names(d.mrMode())).num("mr_key_size", d.mrKeySize())
            .num("cq_data_size", d.cqDataSize()).num("cq_cnt", d.cqCnt()).num("ep_cnt", d.epCnt())
            .num("tx_ctx_cnt", d.txCtxCnt()).num("rx_ctx_cnt", d.rxCtxCnt()).num("max_ep_tx_ctx", d.maxEpTxCtx())
            .num("max_ep_rx_ctx", d.maxEpRxCtx()).num("max_ep_stx_ctx", d.maxEpStxCtx())
            .num("max_ep_srx_ctx", d.maxEpSrxCtx()).num("cntr_cnt", d.cntrCnt()).num("mr_iov_limit", d.mrIovLimit())
            .names("caps", Flags.names(d.caps())).names("mode", Mode.names(d.mode()))
            .num("auth_key_size", length(d.authKey())).num("max_err_data", d.maxErrData())
            .num("mr_cnt", d.mrCnt()).num("max_ep_auth_key", d.maxEpAuthKey()).num("tclass", d.tclass()).close();
        final FabricAttr f = info.fabricAttr();
        o.open("fabric_attr").str("name", f.name()).str("prov_name", f.provName())
            .str("prov_version", version(f.provVersion())).str("api_version", version(f.apiVersion())).close();
        final Nic nic = info.nic();
        if (nic != null)
        {
            o.open("nic").str("device_name", nic.deviceName()).str("device_id", nic.deviceId())
                .str("device_version", nic.deviceVersion()).str("vendor_id", nic.vendorId())
                .str("driver", nic.driver()).str("firmware", nic.firmware()).str("bus_type", nic.busType())
                .str("bus_address", nic.busAddress()).str("link_address", nic.linkAddress())
                .num("mtu", nic.mtu()).num("speed", nic.speed()).str("link_state", nic.linkState())
                .str("network_type", nic.networkType()).close();
        }
        o.end();
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
     */
    private static List<String> compOrderNames(final long order)
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

    /**
     * Minimal JSON object writer: only what {@link #json(List)} needs.
     */
    private static final class Obj
    {
        private final StringBuilder sb;
        private final boolean[] first = new boolean[4];
        private int depth;

        Obj(final StringBuilder sb)
        {
            this.sb = sb;
            sb.append('{');
            first[0] = true;
        }

        Obj key(final String k)
        {
            if (!first[depth])
            {
                sb.append(", ");
            }
            first[depth] = false;
            quote(k);
            sb.append(": ");
            return this;
        }

        Obj str(final String k, final String v)
        {
            key(k);
            if (v == null)
            {
                sb.append("null");
            }
            else
            {
                quote(v);
            }
            return this;
        }

        Obj num(final String k, final long v)
        {
            key(k);
            sb.append(Long.toUnsignedString(v));
            return this;
        }

        Obj names(final String k, final List<String> names)
        {
            key(k);
            sb.append('[');
            for (int i = 0; i < names.size(); i++)
            {
                if (i > 0)
                {
                    sb.append(", ");
                }
                quote(names.get(i));
            }
            sb.append(']');
            return this;
        }

        Obj open(final String k)
        {
            key(k);
            sb.append('{');
            first[++depth] = true;
            return this;
        }

        Obj close()
        {
            sb.append('}');
            depth--;
            return this;
        }

        void end()
        {
            sb.append('}');
        }

        private void quote(final String s)
        {
            sb.append('"');
            for (int i = 0; i < s.length(); i++)
            {
                final char c = s.charAt(i);
                if (c == '"' || c == '\\')
                {
                    sb.append('\\').append(c);
                }
                else if (c < 0x20)
                {
                    sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                }
                else
                {
                    sb.append(c);
                }
            }
            sb.append('"');
        }
    }
}
