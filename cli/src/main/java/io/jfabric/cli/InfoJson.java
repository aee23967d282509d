package io.jfabric.cli;

import com.google.gson.stream.JsonWriter;
import io.jfabric.DomainAttr;
import io.jfabric.EpAttr;
import io.jfabric.FabricAttr;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.InfoFormat;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.MsgOrder;
import io.jfabric.Nic;
import io.jfabric.Protocol;
import io.jfabric.RxAttr;
import io.jfabric.TxAttr;
import io.jfabric.Version;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * {@code jfabric info --json}: infos and provider lists as JSON, written with Gson's streaming {@link JsonWriter}
 * (the one JSON library of the command line, which {@link PingpongResult} uses too). Field names are
 * {@code fi_info}'s, nested by attribute structure; bit sets are arrays of names, enums their names, addresses text,
 * sizes unsigned numbers.
 * <p>
 * Stateless; thread-safe.
 */
final class InfoJson
{
    private InfoJson()
    {
    }

    /**
     * @param infos the infos.
     * @return a JSON array of one object per info, two-space indented, with a final newline.
     */
    static String infos(final List<Info> infos)
    {
        return write((w) ->
        {
            w.beginArray();
            for (final Info info : infos)
            {
                info(w, info);
            }
            w.endArray();
        }) + "\n";
    }

    /**
     * @param providers one info per provider ({@code FI_PROV_ATTR_ONLY}).
     * @return a JSON array of {@code {"name", "version"}} objects, with a final newline.
     */
    static String providers(final List<Info> providers)
    {
        return write((w) ->
        {
            w.beginArray();
            for (final Info info : providers)
            {
                final FabricAttr p = info.fabricAttr();
                w.beginObject().name("name").value(p.provName()).name("version").value(version(p.provVersion()));
                w.endObject();
            }
            w.endArray();
        }) + "\n";
    }

    private static void info(final JsonWriter w, final Info info) throws IOException
    {
        w.beginObject();
        names(w, "caps", Flags.names(info.caps()));
        names(w, "mode", Mode.names(info.mode()));
        w.name("addr_format").value(info.addrFormat().fiName());
        w.name("src_addr").value(null == info.srcAddr() ? null : InfoFormat.address(info.addrFormat(), info.srcAddr()));
        w.name("dest_addr")
            .value(null == info.destAddr() ? null : InfoFormat.address(info.addrFormat(), info.destAddr()));

        final TxAttr tx = info.txAttr();
        w.name("tx_attr").beginObject();
        names(w, "caps", Flags.names(tx.caps()));
        names(w, "mode", Mode.names(tx.mode()));
        names(w, "op_flags", Flags.names(tx.opFlags()));
        names(w, "msg_order", MsgOrder.names(tx.msgOrder()));
        names(w, "comp_order", InfoFormat.compOrderNames(tx.compOrder()));
        size(w, "inject_size", tx.injectSize());
        size(w, "size", tx.size());
        size(w, "iov_limit", tx.iovLimit());
        size(w, "rma_iov_limit", tx.rmaIovLimit());
        size(w, "tclass", tx.tclass());
        w.endObject();

        final RxAttr rx = info.rxAttr();
        w.name("rx_attr").beginObject();
        names(w, "caps", Flags.names(rx.caps()));
        names(w, "mode", Mode.names(rx.mode()));
        names(w, "op_flags", Flags.names(rx.opFlags()));
        names(w, "msg_order", MsgOrder.names(rx.msgOrder()));
        names(w, "comp_order", InfoFormat.compOrderNames(rx.compOrder()));
        size(w, "total_buffered_recv", rx.totalBufferedRecv());
        size(w, "size", rx.size());
        size(w, "iov_limit", rx.iovLimit());
        w.endObject();

        final EpAttr ep = info.epAttr();
        w.name("ep_attr").beginObject();
        w.name("type").value(ep.type().fiName());
        w.name("protocol").value(Protocol.name(ep.protocol()));
        size(w, "protocol_version", ep.protocolVersion() & 0xFFFFFFFFL);
        size(w, "max_msg_size", ep.maxMsgSize());
        size(w, "msg_prefix_size", ep.msgPrefixSize());
        size(w, "max_order_raw_size", ep.maxOrderRawSize());
        size(w, "max_order_war_size", ep.maxOrderWarSize());
        size(w, "max_order_waw_size", ep.maxOrderWawSize());
        w.name("mem_tag_format").value("0x" + Long.toHexString(ep.memTagFormat()));
        size(w, "tx_ctx_cnt", ep.txCtxCnt());
        size(w, "rx_ctx_cnt", ep.rxCtxCnt());
        size(w, "auth_key_size", length(ep.authKey()));
        w.endObject();

        final DomainAttr d = info.domainAttr();
        w.name("domain_attr").beginObject();
        w.name("name").value(d.name());
        w.name("threading").value(d.threading().fiName());
        w.name("control_progress").value(d.controlProgress().fiName());
        w.name("data_progress").value(d.dataProgress().fiName());
        w.name("resource_mgmt").value(d.resourceMgmt().fiName());
        w.name("av_type").value(d.avType().fiName());
        names(w, "mr_mode", MrMode.names(d.mrMode()));
        size(w, "mr_key_size", d.mrKeySize());
        size(w, "cq_data_size", d.cqDataSize());
        size(w, "cq_cnt", d.cqCnt());
        size(w, "ep_cnt", d.epCnt());
        size(w, "tx_ctx_cnt", d.txCtxCnt());
        size(w, "rx_ctx_cnt", d.rxCtxCnt());
        size(w, "max_ep_tx_ctx", d.maxEpTxCtx());
        size(w, "max_ep_rx_ctx", d.maxEpRxCtx());
        size(w, "max_ep_stx_ctx", d.maxEpStxCtx());
        size(w, "max_ep_srx_ctx", d.maxEpSrxCtx());
        size(w, "cntr_cnt", d.cntrCnt());
        size(w, "mr_iov_limit", d.mrIovLimit());
        names(w, "caps", Flags.names(d.caps()));
        names(w, "mode", Mode.names(d.mode()));
        size(w, "auth_key_size", length(d.authKey()));
        size(w, "max_err_data", d.maxErrData());
        size(w, "mr_cnt", d.mrCnt());
        size(w, "max_ep_auth_key", d.maxEpAuthKey());
        size(w, "tclass", d.tclass());
        w.endObject();

        final FabricAttr f = info.fabricAttr();
        w.name("fabric_attr").beginObject();
        w.name("name").value(f.name());
        w.name("prov_name").value(f.provName());
        w.name("prov_version").value(version(f.provVersion()));
        w.name("api_version").value(version(f.apiVersion()));
        w.endObject();

        final Nic nic = info.nic();
        if (null != nic)
        {
            w.name("nic").beginObject();
            w.name("device_name").value(nic.deviceName());
            w.name("device_id").value(nic.deviceId());
            w.name("device_version").value(nic.deviceVersion());
            w.name("vendor_id").value(nic.vendorId());
            w.name("driver").value(nic.driver());
            w.name("firmware").value(nic.firmware());
            w.name("bus_type").value(nic.busType());
            w.name("bus_address").value(nic.busAddress());
            w.name("link_address").value(nic.linkAddress());
            size(w, "mtu", nic.mtu());
            size(w, "speed", nic.speed());
            w.name("link_state").value(nic.linkState());
            w.name("network_type").value(nic.networkType());
            w.endObject();
        }
        w.endObject();
    }

    private static void names(final JsonWriter w, final String key, final List<String> names) throws IOException
    {
        w.name(key).beginArray();
        for (final String n : names)
        {
            w.value(n);
        }
        w.endArray();
    }

    private static void size(final JsonWriter w, final String key, final long value) throws IOException
    {
        // sizes are size_t in libfabric: unsigned
        w.name(key).jsonValue(Long.toUnsignedString(value));
    }

    private static String version(final Version v)
    {
        return null == v ? null : v.major() + "." + v.minor();
    }

    private static int length(final byte[] b)
    {
        return null == b ? 0 : b.length;
    }

    /**
     * Runs {@code body} on a two-space-indented writer over a string.
     */
    static String write(final Body body)
    {
        final StringWriter text = new StringWriter();
        try (JsonWriter w = new JsonWriter(text))
        {
            w.setIndent("  ");
            w.setSerializeNulls(true);
            body.write(w);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return text.toString();
    }

    /**
     * Writes a JSON value.
     */
    @FunctionalInterface
    interface Body
    {
        /**
         * @param w the writer.
         * @throws IOException never for the string writer used.
         */
        void write(JsonWriter w) throws IOException;
    }
}
