package io.jfabric.provider.gni;

/**
 * The names and option numbers of the gni provider's {@code fi_open_ops} extensions, as {@code fi_ext_gni.h} defines
 * them (GNI.md §2.12): open an extension with {@code Fabric.openOps}, {@code Domain.openOps} or
 * {@code Endpoint.openOps} and read or write an option by its number. Where fi_gni(7) and the header spell a name
 * differently both spellings are given (the names {@code "fab ops 1"} and {@code "fabric ops 1"} both open the
 * fabric extension; {@link #GNI_MR_UDREG_LIMIT} and {@link #GNI_MR_UDREG_REG_LIMIT} are the same option).
 * Options numbered from {@link #GNI_STATS_FIRST} are jfabric's read-only statistics (not upstream's).
 * <p>
 * Threading: constants only.
 */
public final class GniOps
{
    /** {@code FI_GNI_DOMAIN_OPS_1}. */
    public static final String FI_GNI_DOMAIN_OPS_1 = "domain ops 1";
    /** {@code FI_GNI_EP_OPS_1}. */
    public static final String FI_GNI_EP_OPS_1 = "ep ops 1";
    /** {@code FI_GNI_FAB_OPS_1} (the header's name). */
    public static final String FI_GNI_FAB_OPS_1 = "fab ops 1";
    /** {@code FI_GNI_FABRIC_OPS_1} (the man page's name of the same extension). */
    public static final String FI_GNI_FABRIC_OPS_1 = "fabric ops 1";
    /** {@code FI_GNI_FAB_OPS_2}: the authorization-key extension (the header's name). */
    public static final String FI_GNI_FAB_OPS_2 = "fab ops 2";
    /** {@code FI_GNI_FABRIC_OPS_2} (the man page's name of the same extension). */
    public static final String FI_GNI_FABRIC_OPS_2 = "fabric ops 2";

    // FI_GNI_DOMAIN_OPS_1 (enum dom_ops_val).
    /** u32, default 16384: messages at or above it go by rendezvous (read at every send). */
    public static final int GNI_MSG_RENDEZVOUS_THRESHOLD = 0;
    /** u32, default 8192: RMA at or above it goes by BTE, below by FMA (read at every RMA). */
    public static final int GNI_RMA_RDMA_THRESHOLD = 1;
    /** u32, default 64, not 0 and not above the max size. */
    public static final int GNI_CONN_TABLE_INITIAL_SIZE = 2;
    /** u32, default 16384, not 0. */
    public static final int GNI_CONN_TABLE_MAX_SIZE = 3;
    /** u32, default 2, at least 2. */
    public static final int GNI_CONN_TABLE_STEP_SIZE = 4;
    /** u32, default 128. */
    public static final int GNI_VC_ID_TABLE_CAPACITY = 5;
    /** u32 (MiB), default 2. */
    public static final int GNI_MBOX_PAGE_SIZE = 6;
    /** u32, default 2048, not 0. */
    public static final int GNI_MBOX_NUM_PER_SLAB = 7;
    /** u32, default 64, at most 65535. */
    public static final int GNI_MBOX_MAX_CREDIT = 8;
    /**
     * u32, default 16384, at most 65535 ({@code GNI_SMSG_MAX_SIZE}), at least 336 (the provider's longest mailbox
     * message, a rendezvous START of 8 buffers).
     */
    public static final int GNI_MBOX_MSG_MAX_SIZE = 9;
    /** u32, default 16384, at least 1. */
    public static final int GNI_RX_CQ_SIZE = 10;
    /** u32, default 2048, at least 1. */
    public static final int GNI_TX_CQ_SIZE = 11;
    /** u32, default 5. */
    public static final int GNI_MAX_RETRANSMITS = 12;
    /** i32, default 0 (below 0: random, above: a count). */
    public static final int GNI_ERR_INJECT_COUNT = 13;
    /** i32, default 1 (the emulated system has the kernel notifier): lazy deregistration of the MR cache. */
    public static final int GNI_MR_CACHE_LAZY_DEREG = 14;
    /** string {@code internal} (default), {@code udreg} or {@code none}; EINVAL once the cache is in use. */
    public static final int GNI_MR_CACHE = 15;
    /** i32, default 2048, not below 0: the udreg cache's entries. */
    public static final int GNI_MR_UDREG_REG_LIMIT = 16;
    /** fi_gni(7)'s name of {@link #GNI_MR_UDREG_REG_LIMIT}. */
    public static final int GNI_MR_UDREG_LIMIT = GNI_MR_UDREG_REG_LIMIT;
    /** i32, default 4096. */
    public static final int GNI_MR_SOFT_REG_LIMIT = 17;
    /** i32, default -1 (none): registrations in use beyond it fail ENOSPC. */
    public static final int GNI_MR_HARD_REG_LIMIT = 18;
    /** i32, default 128: stale (lazily deregistered) entries kept. */
    public static final int GNI_MR_HARD_STALE_REG_LIMIT = 19;
    /** boolean, default false (the emulated system has no XPMEM). */
    public static final int GNI_XPMEM_ENABLE = 20;
    /** u32 ms, default 100. */
    public static final int GNI_DGRAM_PROGRESS_TIMEOUT = 21;
    /** u32, default 0. */
    public static final int GNI_EAGER_AUTO_PROGRESS = 22;
    /** {@code GNI_NUM_DOM_OPS}: upstream's options of the domain extension. */
    public static final int GNI_NUM_DOM_OPS = 23;

    // jfabric's read-only statistics of the domain extension.
    /** First statistics option. */
    public static final int GNI_STATS_FIRST = 100;
    /** Read-only: FMA posts (PUT and GET) of the domain's NIC. */
    public static final int GNI_STAT_FMA_POSTS = 100;
    /** Read-only: BTE posts (RDMA PUT and GET) of the domain's NIC. */
    public static final int GNI_STAT_BTE_POSTS = 101;
    /** Read-only: MR cache entries in use. */
    public static final int GNI_STAT_MR_CACHE_INUSE = 102;
    /** Read-only: MR cache stale entries (lazily deregistered, still registered with the NIC). */
    public static final int GNI_STAT_MR_CACHE_STALE = 103;
    /** Read-only: MR cache lookups served by an existing registration. */
    public static final int GNI_STAT_MR_CACHE_HITS = 104;
    /** Read-only: MR cache lookups that registered with the NIC. */
    public static final int GNI_STAT_MR_CACHE_MISSES = 105;
    /** Read-only: NIC deregistrations done by the MR cache. */
    public static final int GNI_STAT_MR_CACHE_DEREGISTRATIONS = 106;
    /** Read-only: {@code flush_cache} calls the MR cache carried out. */
    public static final int GNI_STAT_MR_CACHE_FLUSHES = 107;
    /** Read-only: NIC registrations of the domain's NIC in use (every kind). */
    public static final int GNI_STAT_NIC_REGISTRATIONS = 108;
    /** Read-only: chained FMA posts ({@code GNI_CtPostFma}, one per {@code FI_MORE} chain sent) of the domain's NIC. */
    public static final int GNI_STAT_FMA_CHAINS = 109;
    /** One past the last statistics option. */
    public static final int GNI_STATS_END = 110;

    // FI_GNI_EP_OPS_1.
    /** u32, default 0 (list), 1 = hashed; EINVAL once the endpoint is enabled. */
    public static final int GNI_HASH_TAG_IMPL = 0;

    // FI_GNI_FAB_OPS_1 (process globals).
    /** u32 µs (upstream's unit; fi_gni(7) says seconds), default 20. */
    public static final int GNI_WAIT_THREAD_SLEEP = 0;
    /** u32, default 192, at most 4096. */
    public static final int GNI_DEFAULT_USER_REGISTRATION_LIMIT = 1;
    /** u32, default 64, at most 4096. */
    public static final int GNI_DEFAULT_PROV_REGISTRATION_LIMIT = 2;
    /** u32 s, default 30. */
    public static final int GNI_WAIT_SHARED_MEMORY_TIMEOUT = 3;

    // FI_GNI_FAB_OPS_2 (per authorization key).
    /** i32: user registrations of the key (default the fabric's 192); EAGAIN once the key is in use. */
    public static final int GNIX_USER_KEY_LIMIT = 0;
    /** i32: provider registrations of the key (default the fabric's 64); EAGAIN once the key is in use. */
    public static final int GNIX_PROV_KEY_LIMIT = 1;
    /** i32, read-only: user + provider limits. */
    public static final int GNIX_TOTAL_KEYS_NEEDED = 2;
    /** i32, read-only: user limit / ranks on the node (one rank per node here). */
    public static final int GNIX_USER_KEY_MAX_PER_RANK = 3;

    /** {@code native_amo} request types ({@code enum gnix_fab_req_type}): AX. */
    public static final int GNIX_FAB_RQ_NAMO_AX = 0x20;
    /** AX on 32 bits. */
    public static final int GNIX_FAB_RQ_NAMO_AX_S = 0x21;
    /** FAX. */
    public static final int GNIX_FAB_RQ_NAMO_FAX = 0x22;
    /** FAX on 32 bits. */
    public static final int GNIX_FAB_RQ_NAMO_FAX_S = 0x23;

    private GniOps()
    {
    }
}
