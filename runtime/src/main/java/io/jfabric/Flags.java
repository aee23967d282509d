package io.jfabric;

import java.util.List;

/**
 * The one 64-bit {@code FI_*} flag space that libfabric shares between capabilities ({@code fi_info.caps},
 * {@code tx_attr.caps} ...), operation flags ({@code op_flags}, per-call flags, completion flags) and the
 * flags of {@code fi_getinfo} itself. The values are those of libfabric's {@code rdma/fabric.h}
 * (and {@code fi_tagged.h}, {@code fi_endpoint.h} for the operation-specific bits 57..59).
 * <p>
 * Names of the 1.0-era man page and of kfabric whose historic bits were later reused for other flags
 * ({@link #BUFFERED_RECV}, {@link #REMOTE_SIGNAL}, {@link #REMOTE_COMPLETE}, {@link #CANCEL}) get bits that
 * are unused in the current header, so that every name of both generations resolves and prints back
 * without ambiguity. {@link #DYNAMIC_MR} keeps its 1.0 bit (7), which is still free.
 * <p>
 * Bits 57..59 carry operation-specific meanings: {@link #CLAIM} shares {@link #DIRECTED_RECV}'s bit,
 * {@link #DISCARD} shares {@link #NAMED_RX_CTX}'s, {@link #SELECTIVE_COMPLETION} (a bind flag) shares bit
 * 59, {@link #FETCH_ATOMIC} and {@link #COMPARE_ATOMIC} ({@code fi_query_atomic} flags) bits 58 and 59, and
 * {@link #AUTH_KEY} shares {@link #SOURCE}'s. A value prints with the capability name.
 * <p>
 * Constants only; parsing and printing are stateless and thread-safe. Control path only.
 */
public final class Flags
{
    /** {@code FI_MSG}: send/receive messaging (primary capability). */
    public static final long MSG = 1L << 1;
    /** {@code FI_RMA}: remote memory read and write (primary capability). */
    public static final long RMA = 1L << 2;
    /** {@code FI_TAGGED}: tagged messaging (primary capability). */
    public static final long TAGGED = 1L << 3;
    /** {@code FI_ATOMIC}: remote atomic operations (primary capability). */
    public static final long ATOMIC = 1L << 4;
    /** {@code FI_ATOMICS}: alias of {@link #ATOMIC}. */
    public static final long ATOMICS = ATOMIC;
    /** {@code FI_MULTICAST}: multicast data transfers (primary capability). */
    public static final long MULTICAST = 1L << 5;
    /** {@code FI_COLLECTIVE}: collective operations (primary capability). */
    public static final long COLLECTIVE = 1L << 6;
    /** {@code FI_DYNAMIC_MR} (1.0 era): any virtual address range may be registered (secondary). */
    public static final long DYNAMIC_MR = 1L << 7;

    /** {@code FI_READ}: initiate reads (primary modifier; also an MR access and counter flag). */
    public static final long READ = 1L << 8;
    /** {@code FI_WRITE}: initiate writes (primary modifier; also an MR access and counter flag). */
    public static final long WRITE = 1L << 9;
    /** {@code FI_RECV}: receive messages (primary modifier; also a CQ/counter bind flag). */
    public static final long RECV = 1L << 10;
    /** {@code FI_SEND}: send messages (primary modifier; also a CQ/counter bind flag). */
    public static final long SEND = 1L << 11;
    /** {@code FI_TRANSMIT}: alias of {@link #SEND}. */
    public static final long TRANSMIT = SEND;
    /** {@code FI_REMOTE_READ}: be the target of reads (primary modifier). */
    public static final long REMOTE_READ = 1L << 12;
    /** {@code FI_REMOTE_WRITE}: be the target of writes (primary modifier). */
    public static final long REMOTE_WRITE = 1L << 13;
    /** {@code FI_BUFFERED_RECV} (1.0-era capability; a {@link Mode} bit today): queue early arrivals. */
    public static final long BUFFERED_RECV = 1L << 14;
    /** {@code FI_REMOTE_SIGNAL} (1.0 era): transfers may be marked signalled at the target. */
    public static final long REMOTE_SIGNAL = 1L << 15;

    /** {@code FI_MULTI_RECV}: one receive buffer holds many messages (secondary; operation flag). */
    public static final long MULTI_RECV = 1L << 16;
    /** {@code FI_REMOTE_CQ_DATA}: remote CQ data is sent/received (operation and completion flag). */
    public static final long REMOTE_CQ_DATA = 1L << 17;
    /** {@code FI_MORE}: more operations follow immediately (operation flag). */
    public static final long MORE = 1L << 18;
    /** {@code FI_PEEK}: look for a match without removing it (receive flag). */
    public static final long PEEK = 1L << 19;
    /** {@code FI_TRIGGER}: triggered operations (secondary capability; operation flag). */
    public static final long TRIGGER = 1L << 20;
    /** {@code FI_FENCE}: fence operations (secondary capability; operation flag). */
    public static final long FENCE = 1L << 21;
    /** {@code FI_PRIORITY}: priority operation (operation flag). */
    public static final long PRIORITY = 1L << 22;
    /** {@code FI_REMOTE_COMPLETE} (1.0 era): complete only once the target has processed the data. */
    public static final long REMOTE_COMPLETE = 1L << 23;

    /** {@code FI_COMPLETION}: generate a completion (operation flag). */
    public static final long COMPLETION = 1L << 24;
    /** {@code FI_EVENT}: alias of {@link #COMPLETION}. */
    public static final long EVENT = COMPLETION;
    /** {@code FI_INJECT}: the buffer is reusable on return (operation flag). */
    public static final long INJECT = 1L << 25;
    /** {@code FI_INJECT_COMPLETE}: complete once the buffer is reusable. */
    public static final long INJECT_COMPLETE = 1L << 26;
    /** {@code FI_TRANSMIT_COMPLETE}: complete once the transfer left the initiator reliably. */
    public static final long TRANSMIT_COMPLETE = 1L << 27;
    /** {@code FI_DELIVERY_COMPLETE}: complete once the data is visible at the target. */
    public static final long DELIVERY_COMPLETE = 1L << 28;
    /** {@code FI_AFFINITY}: operation affinity hint. */
    public static final long AFFINITY = 1L << 29;
    /** {@code FI_COMMIT_COMPLETE}: complete once the data is persistent at the target. */
    public static final long COMMIT_COMPLETE = 1L << 30;
    /** {@code FI_MATCH_COMPLETE}: complete once the message was matched at the target. */
    public static final long MATCH_COMPLETE = 1L << 31;
    /** {@code FI_CANCEL} (1.0 era and kfabric): the application may cancel outstanding operations. */
    public static final long CANCEL = 1L << 32;

    /** {@code FI_PEER_TRANSFER}: peer-provider transfer. */
    public static final long PEER_TRANSFER = 1L << 36;
    /** {@code FI_MR_DMABUF}: MR attribute carries a dma-buf. */
    public static final long MR_DMABUF = 1L << 40;
    /** {@code FI_AV_USER_ID}: AV insert carries user ids. */
    public static final long AV_USER_ID = 1L << 41;
    /** {@code FI_PEER}: peer provider capability. */
    public static final long PEER = 1L << 43;
    /** {@code FI_XPU_TRIGGER}: device-triggered operations. */
    public static final long XPU_TRIGGER = 1L << 44;
    /** {@code FI_HMEM_HOST_ALLOC}: host memory allocated by a device runtime. */
    public static final long HMEM_HOST_ALLOC = 1L << 45;
    /** {@code FI_HMEM_DEVICE_ONLY}: memory accessible by the device only. */
    public static final long HMEM_DEVICE_ONLY = 1L << 46;
    /** {@code FI_HMEM}: heterogeneous (device) memory (primary capability). */
    public static final long HMEM = 1L << 47;
    /** {@code FI_VARIABLE_MSG}: variable-length messages (primary capability). */
    public static final long VARIABLE_MSG = 1L << 48;
    /** {@code FI_RMA_PMEM}: RMA to persistent memory (secondary capability). */
    public static final long RMA_PMEM = 1L << 49;
    /** {@code FI_SOURCE_ERR}: raw source address on unknown-source errors (secondary capability). */
    public static final long SOURCE_ERR = 1L << 50;
    /** {@code FI_LOCAL_COMM}: communication within the node (secondary capability). */
    public static final long LOCAL_COMM = 1L << 51;
    /** {@code FI_REMOTE_COMM}: communication across nodes (secondary capability). */
    public static final long REMOTE_COMM = 1L << 52;
    /** {@code FI_SHARED_AV}: address vectors shared between processes (secondary capability). */
    public static final long SHARED_AV = 1L << 53;
    /** {@code FI_PROV_ATTR_ONLY}: getinfo flag, return one default info per provider. */
    public static final long PROV_ATTR_ONLY = 1L << 54;
    /** {@code FI_NUMERICHOST}: getinfo flag, the node is a numeric address (no name lookup). */
    public static final long NUMERICHOST = 1L << 55;
    /** {@code FI_RMA_EVENT}: RMA events at the target (secondary capability). */
    public static final long RMA_EVENT = 1L << 56;
    /** {@code FI_SOURCE}: source addresses in completions (secondary cap); getinfo flag: node is local. */
    public static final long SOURCE = 1L << 57;
    /** {@code FI_NAMED_RX_CTX}: address a specific receive context (primary capability). */
    public static final long NAMED_RX_CTX = 1L << 58;
    /** {@code FI_DIRECTED_RECV}: receives restricted to a source address (primary capability). */
    public static final long DIRECTED_RECV = 1L << 59;

    /** {@code FI_CLAIM} ({@code fi_tagged.h}): claim a peeked message; shares bit 59. */
    public static final long CLAIM = 1L << 59;
    /** {@code FI_DISCARD} ({@code fi_tagged.h}): discard a (peeked or claimed) message; shares bit 58. */
    public static final long DISCARD = 1L << 58;
    /** {@code FI_AUTH_KEY}: the address carries an authorisation key (operation flag); shares bit 57. */
    public static final long AUTH_KEY = 1L << 57;
    /** {@code FI_SELECTIVE_COMPLETION}: endpoint-to-CQ bind flag; shares bit 59. */
    public static final long SELECTIVE_COMPLETION = 1L << 59;
    /** {@code FI_FETCH_ATOMIC} ({@code fi_atomic.h}): {@code fi_query_atomic} asks about fetching atomics; bit 58. */
    public static final long FETCH_ATOMIC = 1L << 58;
    /** {@code FI_COMPARE_ATOMIC} ({@code fi_atomic.h}): {@code fi_query_atomic} asks about compare atomics; bit 59. */
    public static final long COMPARE_ATOMIC = 1L << 59;

    /** The primary capabilities: they must be requested to be enabled. */
    public static final long PRIMARY_CAPS =
        MSG | RMA | TAGGED | ATOMIC | MULTICAST | NAMED_RX_CTX | DIRECTED_RECV | VARIABLE_MSG | HMEM | COLLECTIVE;

    /** The primary modifiers: they restrict a primary capability; none set means all of them. */
    public static final long PRIMARY_MODIFIERS = READ | WRITE | RECV | SEND | REMOTE_READ | REMOTE_WRITE;

    /**
     * The secondary capabilities: a provider may report them unrequested; requested ones must be met.
     * The 1.0-era capabilities ({@code DYNAMIC_MR}, {@code BUFFERED_RECV}, {@code REMOTE_SIGNAL},
     * {@code REMOTE_COMPLETE}, {@code CANCEL}) count as secondary.
     */
    public static final long SECONDARY_CAPS = MULTI_RECV | SOURCE | RMA_EVENT | SHARED_AV | TRIGGER | FENCE |
        LOCAL_COMM | REMOTE_COMM | SOURCE_ERR | RMA_PMEM |
        DYNAMIC_MR | BUFFERED_RECV | REMOTE_SIGNAL | REMOTE_COMPLETE | CANCEL;

    /**
     * The caps fi_endpoint(3) lists for {@code tx_attr}: FI_MSG, FI_RMA, FI_TAGGED, FI_ATOMIC, FI_READ, FI_WRITE,
     * FI_SEND, FI_HMEM, FI_TRIGGER, FI_FENCE, FI_MULTICAST, FI_RMA_PMEM, FI_NAMED_RX_CTX, FI_COLLECTIVE.
     */
    public static final long TX_ATTR_CAPS = MSG | RMA | TAGGED | ATOMIC | READ | WRITE | SEND | HMEM | TRIGGER |
        FENCE | MULTICAST | RMA_PMEM | NAMED_RX_CTX | COLLECTIVE;

    /**
     * The caps fi_endpoint(3) lists for {@code rx_attr}: FI_MSG, FI_RMA, FI_TAGGED, FI_ATOMIC, FI_REMOTE_READ,
     * FI_REMOTE_WRITE, FI_RECV, FI_HMEM, FI_TRIGGER, FI_RMA_PMEM, FI_DIRECTED_RECV, FI_VARIABLE_MSG, FI_MULTI_RECV,
     * FI_SOURCE, FI_RMA_EVENT, FI_SOURCE_ERR, FI_COLLECTIVE.
     */
    public static final long RX_ATTR_CAPS = MSG | RMA | TAGGED | ATOMIC | REMOTE_READ | REMOTE_WRITE | RECV | HMEM |
        TRIGGER | RMA_PMEM | DIRECTED_RECV | VARIABLE_MSG | MULTI_RECV | SOURCE | RMA_EVENT | SOURCE_ERR | COLLECTIVE;

    /** Every capability bit: primary, modifiers and secondary. */
    public static final long CAPS_MASK = PRIMARY_CAPS | PRIMARY_MODIFIERS | SECONDARY_CAPS;

    /** The flags {@code fi_getinfo} itself accepts. */
    public static final long GETINFO_FLAGS = NUMERICHOST | SOURCE | PROV_ATTR_ONLY;

    /** Completion levels and other transmit operation flags. */
    public static final long TX_OP_FLAGS = COMPLETION | INJECT | INJECT_COMPLETE | TRANSMIT_COMPLETE |
        DELIVERY_COMPLETE | COMMIT_COMPLETE | MATCH_COMPLETE | MORE | FENCE | REMOTE_CQ_DATA | TRIGGER |
        PRIORITY | AFFINITY;

    /** Receive operation flags. */
    public static final long RX_OP_FLAGS = COMPLETION | MULTI_RECV | PEEK | CLAIM | DISCARD | MORE | TRIGGER;

    static final NameTable NAMES = new NameTable("capability or flag")
        .add("FI_MSG", MSG)
        .add("FI_RMA", RMA)
        .add("FI_TAGGED", TAGGED)
        .add("FI_ATOMIC", ATOMIC)
        .add("FI_MULTICAST", MULTICAST)
        .add("FI_COLLECTIVE", COLLECTIVE)
        .add("FI_DYNAMIC_MR", DYNAMIC_MR)
        .add("FI_READ", READ)
        .add("FI_WRITE", WRITE)
        .add("FI_RECV", RECV)
        .add("FI_SEND", SEND)
        .add("FI_REMOTE_READ", REMOTE_READ)
        .add("FI_REMOTE_WRITE", REMOTE_WRITE)
        .add("FI_BUFFERED_RECV", BUFFERED_RECV)
        .add("FI_REMOTE_SIGNAL", REMOTE_SIGNAL)
        .add("FI_MULTI_RECV", MULTI_RECV)
        .add("FI_REMOTE_CQ_DATA", REMOTE_CQ_DATA)
        .add("FI_MORE", MORE)
        .add("FI_PEEK", PEEK)
        .add("FI_TRIGGER", TRIGGER)
        .add("FI_FENCE", FENCE)
        .add("FI_PRIORITY", PRIORITY)
        .add("FI_REMOTE_COMPLETE", REMOTE_COMPLETE)
        .add("FI_COMPLETION", COMPLETION)
        .add("FI_INJECT", INJECT)
        .add("FI_INJECT_COMPLETE", INJECT_COMPLETE)
        .add("FI_TRANSMIT_COMPLETE", TRANSMIT_COMPLETE)
        .add("FI_DELIVERY_COMPLETE", DELIVERY_COMPLETE)
        .add("FI_AFFINITY", AFFINITY)
        .add("FI_COMMIT_COMPLETE", COMMIT_COMPLETE)
        .add("FI_MATCH_COMPLETE", MATCH_COMPLETE)
        .add("FI_CANCEL", CANCEL)
        .add("FI_PEER_TRANSFER", PEER_TRANSFER)
        .add("FI_MR_DMABUF", MR_DMABUF)
        .add("FI_AV_USER_ID", AV_USER_ID)
        .add("FI_PEER", PEER)
        .add("FI_XPU_TRIGGER", XPU_TRIGGER)
        .add("FI_HMEM_HOST_ALLOC", HMEM_HOST_ALLOC)
        .add("FI_HMEM_DEVICE_ONLY", HMEM_DEVICE_ONLY)
        .add("FI_HMEM", HMEM)
        .add("FI_VARIABLE_MSG", VARIABLE_MSG)
        .add("FI_RMA_PMEM", RMA_PMEM)
        .add("FI_SOURCE_ERR", SOURCE_ERR)
        .add("FI_LOCAL_COMM", LOCAL_COMM)
        .add("FI_REMOTE_COMM", REMOTE_COMM)
        .add("FI_SHARED_AV", SHARED_AV)
        .add("FI_PROV_ATTR_ONLY", PROV_ATTR_ONLY)
        .add("FI_NUMERICHOST", NUMERICHOST)
        .add("FI_RMA_EVENT", RMA_EVENT)
        .add("FI_SOURCE", SOURCE)
        .add("FI_NAMED_RX_CTX", NAMED_RX_CTX)
        .add("FI_DIRECTED_RECV", DIRECTED_RECV)
        .alias("FI_ATOMICS", ATOMICS)
        .alias("FI_TRANSMIT", TRANSMIT)
        .alias("FI_EVENT", EVENT)
        .alias("FI_CLAIM", CLAIM)
        .alias("FI_DISCARD", DISCARD)
        .alias("FI_AUTH_KEY", AUTH_KEY)
        .alias("FI_SELECTIVE_COMPLETION", SELECTIVE_COMPLETION)
        .alias("FI_FETCH_ATOMIC", FETCH_ATOMIC)
        .alias("FI_COMPARE_ATOMIC", COMPARE_ATOMIC);

    private Flags()
    {
    }

    /**
     * Parses a set of flag names: {@code "FI_TAGGED|FI_MSG"}, {@code "msg,tagged"}, {@code "KFI_TAGGED"},
     * case-insensitive; separators {@code |}, {@code ,}, {@code +} or spaces; a number is taken as raw bits.
     *
     * @param text the names; null or empty gives 0.
     * @return the bits.
     * @throws FabricException EINVAL naming the unknown name and listing the valid ones.
     */
    public static long parse(final String text)
    {
        return NAMES.parseBits(text);
    }

    /**
     * Prints a flag set as {@code fi_tostr} does: {@code "FI_MSG | FI_TAGGED"} (empty for 0).
     *
     * @param flags the bits.
     * @return the printed form; unnamed bits appear as one hexadecimal value.
     */
    public static String print(final long flags)
    {
        return NAMES.printBits(flags);
    }

    /**
     * The canonical names of the set bits.
     *
     * @param flags the bits.
     * @return the names in bit order.
     */
    public static List<String> names(final long flags)
    {
        return NAMES.namesOf(flags);
    }

    /**
     * Whether a single name resolves ({@code FI_MSG}, {@code msg}, {@code KFI_MSG}).
     *
     * @param name the name.
     * @return true when it is a known flag name.
     */
    public static boolean isName(final String name)
    {
        return NAMES.contains(name);
    }

    /**
     * Every canonical flag name, comma separated (for messages listing valid names).
     *
     * @return the names.
     */
    public static String validNames()
    {
        return NAMES.validNames();
    }
}
