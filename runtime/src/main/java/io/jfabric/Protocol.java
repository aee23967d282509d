package io.jfabric;

/**
 * Endpoint wire protocols ({@code ep_attr.protocol}): the values of libfabric's {@code FI_PROTO_*} enum, plus
 * jfabric's own protocols in the provider-specific range ({@code FI_PROV_SPECIFIC}, bit 31 set).
 * <p>
 * Constants only; parsing and printing are stateless and thread-safe. Control path only.
 */
public final class Protocol
{
    /** {@code FI_PROV_SPECIFIC}: the bit that marks provider-specific values. */
    public static final int PROV_SPECIFIC = 1 << 31;

    /** {@code FI_PROTO_UNSPEC}. */
    public static final int UNSPEC = 0;
    /** {@code FI_PROTO_RDMA_CM_IB_RC}. */
    public static final int RDMA_CM_IB_RC = 1;
    /** {@code FI_PROTO_IWARP}. */
    public static final int IWARP = 2;
    /** {@code FI_PROTO_IB_UD}. */
    public static final int IB_UD = 3;
    /** {@code FI_PROTO_PSMX}. */
    public static final int PSMX = 4;
    /** {@code FI_PROTO_UDP}. */
    public static final int UDP = 5;
    /** {@code FI_PROTO_SOCK_TCP}. */
    public static final int SOCK_TCP = 6;
    /** {@code FI_PROTO_MXM}. */
    public static final int MXM = 7;
    /** {@code FI_PROTO_IWARP_RDM}. */
    public static final int IWARP_RDM = 8;
    /** {@code FI_PROTO_IB_RDM}. */
    public static final int IB_RDM = 9;
    /** {@code FI_PROTO_GNI}. */
    public static final int GNI = 10;
    /** {@code FI_PROTO_RXM}. */
    public static final int RXM = 11;
    /** {@code FI_PROTO_RXD}. */
    public static final int RXD = 12;
    /** {@code FI_PROTO_MLX}. */
    public static final int MLX = 13;
    /** {@code FI_PROTO_NETWORKDIRECT}. */
    public static final int NETWORKDIRECT = 14;
    /** {@code FI_PROTO_PSMX2}. */
    public static final int PSMX2 = 15;
    /** {@code FI_PROTO_SHM}. */
    public static final int SHM = 16;
    /** {@code FI_PROTO_MRAIL}. */
    public static final int MRAIL = 17;
    /** {@code FI_PROTO_RSTREAM}. */
    public static final int RSTREAM = 18;
    /** {@code FI_PROTO_RDMA_CM_IB_XRC}. */
    public static final int RDMA_CM_IB_XRC = 19;
    /** {@code FI_PROTO_EFA}. */
    public static final int EFA = 20;
    /** {@code FI_PROTO_PSMX3}. */
    public static final int PSMX3 = 21;
    /** {@code FI_PROTO_RXM_TCP}. */
    public static final int RXM_TCP = 22;
    /** {@code FI_PROTO_OPX}. */
    public static final int OPX = 23;
    /** {@code FI_PROTO_CXI}. */
    public static final int CXI = 24;
    /** {@code FI_PROTO_XNET}. */
    public static final int XNET = 25;
    /** {@code FI_PROTO_COLL}. */
    public static final int COLL = 26;
    /** {@code FI_PROTO_UCX}. */
    public static final int UCX = 27;
    /** {@code FI_PROTO_SM2}. */
    public static final int SM2 = 28;

    /** {@code FI_PROTO_JFABRIC_INPROC}: jfabric frames between domains of one JVM. */
    public static final int JFABRIC_INPROC = PROV_SPECIFIC | 1;
    /** {@code FI_PROTO_JFABRIC_SHM}: jfabric frames over shared-memory rings. */
    public static final int JFABRIC_SHM = PROV_SPECIFIC | 2;
    /** {@code FI_PROTO_JFABRIC_AERON}: jfabric frames over Aeron publications. */
    public static final int JFABRIC_AERON = PROV_SPECIFIC | 3;

    static final NameTable NAMES = new NameTable("protocol")
        .add("FI_PROTO_UNSPEC", UNSPEC)
        .add("FI_PROTO_RDMA_CM_IB_RC", RDMA_CM_IB_RC)
        .add("FI_PROTO_IWARP", IWARP)
        .add("FI_PROTO_IB_UD", IB_UD)
        .add("FI_PROTO_PSMX", PSMX)
        .add("FI_PROTO_UDP", UDP)
        .add("FI_PROTO_SOCK_TCP", SOCK_TCP)
        .add("FI_PROTO_MXM", MXM)
        .add("FI_PROTO_IWARP_RDM", IWARP_RDM)
        .add("FI_PROTO_IB_RDM", IB_RDM)
        .add("FI_PROTO_GNI", GNI)
        .add("FI_PROTO_RXM", RXM)
        .add("FI_PROTO_RXD", RXD)
        .add("FI_PROTO_MLX", MLX)
        .add("FI_PROTO_NETWORKDIRECT", NETWORKDIRECT)
        .add("FI_PROTO_PSMX2", PSMX2)
        .add("FI_PROTO_SHM", SHM)
        .add("FI_PROTO_MRAIL", MRAIL)
        .add("FI_PROTO_RSTREAM", RSTREAM)
        .add("FI_PROTO_RDMA_CM_IB_XRC", RDMA_CM_IB_XRC)
        .add("FI_PROTO_EFA", EFA)
        .add("FI_PROTO_PSMX3", PSMX3)
        .add("FI_PROTO_RXM_TCP", RXM_TCP)
        .add("FI_PROTO_OPX", OPX)
        .add("FI_PROTO_CXI", CXI)
        .add("FI_PROTO_XNET", XNET)
        .add("FI_PROTO_COLL", COLL)
        .add("FI_PROTO_UCX", UCX)
        .add("FI_PROTO_SM2", SM2)
        .add("FI_PROTO_JFABRIC_INPROC", JFABRIC_INPROC & 0xFFFFFFFFL)
        .add("FI_PROTO_JFABRIC_SHM", JFABRIC_SHM & 0xFFFFFFFFL)
        .add("FI_PROTO_JFABRIC_AERON", JFABRIC_AERON & 0xFFFFFFFFL);

    private Protocol()
    {
    }

    /**
     * Parses a protocol name ({@code FI_PROTO_GNI}, {@code KFI_PROTO_GNI}, {@code proto_gni}, {@code gni}).
     *
     * @param text the name.
     * @return the protocol value.
     * @throws FabricException EINVAL naming the input and listing the valid names when unknown.
     */
    public static int parse(final String text)
    {
        final String t = text == null ? null : text.trim();
        final String k = t == null ? null : NameTable.key(t);
        return (int) NAMES.parseOne(k != null && !k.startsWith("PROTO_") && NAMES.contains("FI_PROTO_" + k) ?
            "FI_PROTO_" + k : t);
    }

    /**
     * The libfabric name of a protocol value.
     *
     * @param protocol the value.
     * @return its {@code FI_PROTO_} name, or the number in hexadecimal when it has none.
     */
    public static String name(final int protocol)
    {
        final long v = protocol & 0xFFFFFFFFL;
        final String n = NAMES.nameOf(v);
        return n.equals(Long.toString(v)) ? "0x" + Long.toHexString(v) : n;
    }
}
