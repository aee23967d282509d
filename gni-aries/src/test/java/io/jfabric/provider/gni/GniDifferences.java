package io.jfabric.provider.gni;

/**
 * The catalogue of the conformance cases {@code gni} answers differently, each with its reason: fi_gni(7)'s limits
 * (one-element atomics, inject 64, RMA and MR iov 1, page-aligned scalable registrations), the lazy connect and MR
 * query under manual progress, the scalable-endpoint maxima filling a domain, one-sided RMA that needs no progress of
 * the target, the local-only {@code fi_shutdown}, and the one-sided rendezvous pull. Every such case runs: the
 * {@code Gni*ConformanceTest} class overrides it (the case is {@code protected} in its suite) with a gni form that
 * asserts gni's answer (exact return codes, events, the target's memory) and then the case's intent within gni's
 * rules; the override's Javadoc and display name cite the constant here. Nothing over gni is disabled: this class
 * holds reasons only.
 */
final class GniDifferences
{
    static final String ONE_ELEMENT = "fi_gni(7): one element per atomic (the AMO unit executes one; the " +
        "valid queries answer count 1), so a vector of several elements is EMSGSIZE";
    static final String INJECT_64 = "fi_gni(7): inject_size is 64 (GNIX_INJECT_SIZE); the case injects or " +
        "copies more than 64 bytes at post (FI_INJECT in tx op_flags or a msg form), which is EMSGSIZE";
    static final String RMA_IOV_1 = "fi_gni(7): rma_iov_limit is 1 (GNIX_MAX_RMA_IOV_LIMIT); the case " +
        "names several remote ranges";
    static final String MR_IOV_1 = "fi_gni(7): mr_iov_limit is 1; the case registers two segments (regv)";
    static final String PAGE_ALIGNED = "fi_gni(7): every registration in scalable mode (the suite's mode " +
        "over gni) starts on a 4 KiB page, else EINVAL (GNI.md 5.6-1); the case registers a region at an unaligned " +
        "offset of its buffer";
    static final String MANUAL_CONNECT = "lazy VC connect (GNI.md 2.2): with FI_PROGRESS_MANUAL the " +
        "initiator's first operation to a peer needs the initiator's own progress calls until the peer's CONN_RESP " +
        "datagram is processed (upstream likewise), and a gni writedata needs them for its MR query, PUT and RMA " +
        "done; the case drives the initiator once, then only the target";
    static final String ONE_SIDED_PULL = "rendezvous by remote GET (fi_gni(7), GNI.md 2.4): the receiver's " +
        "GET is served by the sender's NIC with no progress of the sender, so a matched message lands, and a " +
        "multi-recv buffer stops being busy, at the receiver's next duty cycle; the case expects the pull to wait " +
        "for the sender's progress";
    static final String CONTEXTS_FILL_THE_DOMAIN = "GNIX_SEP_MAX_CNT (GNI.md 2.14): 128 transmit and 128 " +
        "receive contexts take 256 endpoint indices, the runtime's count per domain, and the pair's own endpoint " +
        "already holds one, so the maxima are ENOSPC in the pair's domain and open in a fresh domain " +
        "(GniScalableEndpointTest also routes messages to them there)";
    static final String ONE_SIDED = "one-sided RMA (GNI.md 2.5, fi_gni(7)): the target NIC writes the data " +
        "with no progress of the target (scalable keys name a vMDH slot of its NIC), so a target that never " +
        "progresses has its memory written before it reads again; the case asserts the generic protocol's opposite " +
        "(its inbound ring holds the writes until it progresses)";
    static final String RMA_EVENT_BY_CAPS = "upstream's peer_caps rule (GNI.md 2.5, gnix_rma.c): a target " +
        "endpoint's FI_REMOTE_WRITE/FI_REMOTE_READ counters count RMA and atomics only when its caps have " +
        "FI_RMA_EVENT (the initiator sends the event message only then); the case's pair asks for no FI_RMA_EVENT " +
        "and expects the counts";
    static final String LOCAL_SHUTDOWN = "fi_gni(7), KNOWN BUGS: fi_shutdown is strictly local, the " +
        "connected peer is not notified (ProviderCapabilities.localShutdown); the case expects FI_SHUTDOWN at the " +
        "peer of the endpoint that shuts down";

    static final String NO_AV_EVENT = "fi_gni(7): FI_EVENT is unsupported for address vectors; opening one " +
        "with FI_EVENT, and binding an event queue to any, is ENOSYS (upstream's gnix_av_bind); inserts complete " +
        "synchronously, with per-address errors through FI_SYNC_ERR";
    static final String NO_NAMED_AV = "GNI.md 2.13: a named address vector (attr.name) is ENOSYS (upstream's " +
        "gnix_av_open leaves shared named AVs unsupported); gni does not advertise FI_SHARED_AV";
    static final String MAX_MSG_4G = "max_msg_size is upstream's 2^32 - 1 (GNI.md 1.11), above a Java int: the " +
        "suite's cases that send max_msg_size and max_msg_size + 1 bytes as one buffer cannot; gni's forms send up " +
        "to 1 MiB + 3 and refuse an iov of 2^32 bytes with EMSGSIZE";
    static final String ORDER_SIZES = "GNI.md 2.15: gni advertises max_order_raw/war/waw_size of its " +
        "max_msg_size (2^32 - 1, upstream's) with msg_order SAS only, as upstream's getinfo; the suite expects 0 " +
        "for an order it does not advertise";
    static final String NO_MR_BIND = "fi_mr_bind to a counter (per-region FI_RMA_EVENT counters) is ENOSYS on " +
        "the operation-level back-end: gni's FI_RMA_EVENT counts remote accesses on the target endpoint's " +
        "FI_REMOTE_WRITE/FI_REMOTE_READ counters (RmaEventConformance's other cases)";
    static final String NO_SHARED_CONTEXTS = "fi_gni(7) offers no shared contexts (FI_SHARED_CONTEXT is not in " +
        "its feature list): getinfo with tx_ctx_cnt or rx_ctx_cnt FI_SHARED_CONTEXT answers ENODATA naming the " +
        "reason, and srx/stx contexts are not opened";
    static final String DGRAM_ALL_OPS = "fi_gni(7): atomics, msg, RMA and tagged are supported for all endpoint " +
        "types, DGRAM included, over the same NIC mechanisms as RDM (no retransmission, GNI.md 2.3)";
    static final String DGRAM_MAILBOX = "gni datagrams travel as SMSG messages (GNI.md 2.4): a datagram with no " +
        "receive posted is kept as unexpected while the runtime's store has room and otherwise stays in the peer's " +
        "mailbox (its credit held) until receives are posted, so none is dropped";

    private GniDifferences()
    {
    }
}
