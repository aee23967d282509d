package io.jfabric.provider.gni;

import io.jfabric.aries.PostDescriptor;

/**
 * {@code GNI_ERR_INJECT_COUNT} (domain ops, GNI.md §2.3, upstream's {@code _gnix_req_inject_err}): a transfer chosen
 * to fail is not posted to the NIC; its descriptor goes to this list instead, and the next pass over the TX CQ returns
 * it first as a recoverable {@code TRANSACTION_ERROR} (upstream's {@code _gnix_nic_txd_err_inject} and
 * {@code __nic_get_completed_txd}), so the retransmit path runs exactly as for a NIC failure.
 * <ul>
 *     <li>count &gt; 0: each request fails its first {@code count} transmissions;</li>
 *     <li>count &lt; 0: each transmission fails while the request's failures are below {@code rand() % -count}
 *     (a seeded xorshift here: runs repeat);</li>
 *     <li>0: off.</li>
 * </ul>
 * An eager SMSG is failed only when {@code GNI_MAX_RETRANSMITS <= count} (upstream's
 * {@code _gnix_req_inject_smsg_err}); the provider never retransmits an SMSG, so that send fails.
 * <p>
 * Threading: the domain agent's thread only. Allocation-free after construction.
 */
final class GniErrorInjector
{
    private static final int CAPACITY = 4096;

    private final PostDescriptor[] injected = new PostDescriptor[CAPACITY];
    private int head;
    private int tail;
    private long random = 0x9E37_79B9_7F4A_7C15L;
    private long count;

    /**
     * Should this transmission of a request fail?
     *
     * @param failures the request's failures so far.
     * @param setting  {@code GNI_ERR_INJECT_COUNT}.
     * @return true to inject a failure (the list has room).
     */
    boolean inject(final int failures, final long setting)
    {
        if (0 == setting || tail - head >= CAPACITY)
        {
            return false;
        }
        if (setting > 0)
        {
            return failures < setting;
        }
        random ^= random << 13;
        random ^= random >>> 7;
        random ^= random << 17;
        return failures < Long.remainderUnsigned(random, -setting);
    }

    /**
     * Should an eager SMSG fail?
     *
     * @param setting        {@code GNI_ERR_INJECT_COUNT}.
     * @param maxRetransmits {@code GNI_MAX_RETRANSMITS}.
     * @return true to fail it.
     */
    boolean injectSmsg(final long setting, final long maxRetransmits)
    {
        if (0 != setting && maxRetransmits <= setting)
        {
            count++;
            return true;
        }
        return false;
    }

    /**
     * Fail a transfer instead of posting it.
     *
     * @param descriptor its descriptor, returned by {@link #poll()}.
     */
    void add(final PostDescriptor descriptor)
    {
        injected[tail++ & (CAPACITY - 1)] = descriptor;
        count++;
    }

    /**
     * @return the next injected failure, or null.
     */
    PostDescriptor poll()
    {
        if (head == tail)
        {
            return null;
        }
        final int at = head++ & (CAPACITY - 1);
        final PostDescriptor d = injected[at];
        injected[at] = null;
        return d;
    }

    /**
     * @return failures injected since the domain opened.
     */
    long count()
    {
        return count;
    }
}
