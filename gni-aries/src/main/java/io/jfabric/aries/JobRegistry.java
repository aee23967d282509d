package io.jfabric.aries;

import org.agrona.collections.Int2IntHashMap;

/**
 * The job registry of an emulated system (what ALPS/SLURM and the kernel know): which ptag each job cookie was
 * given ({@code GNI_GetPtag}) and the per-ptag limits (GNI.md §1.1-1.2). A {@link Cdm} whose (ptag, cookie) pair
 * is not registered cannot attach ({@code GNI_RC_PERMISSION_ERROR}).
 * <p>
 * Threading: thread-safe (control path, synchronised).
 */
public final class JobRegistry
{
    /** Lowest user ptag, {@code GNI_PTAG_USER_START}. */
    public static final int PTAG_USER_START = 3;
    /** Highest user ptag, {@code GNI_PTAG_USER_END}. */
    public static final int PTAG_USER_END = 253;
    /** Default CQs per NIC and ptag (upstream's suggested cq limit, GNI.md §1.2). */
    public static final int DEFAULT_MAX_CQS = 2048;
    /** Default MDDs (registrations) per NIC: a 12-bit index, {@code include/gnix_mr.h:53}. */
    public static final int DEFAULT_MAX_MDDS = 4096;

    private final Int2IntHashMap ptagByCookie = new Int2IntHashMap(-1);
    private final Int2IntHashMap maxCqs = new Int2IntHashMap(DEFAULT_MAX_CQS);
    private final Int2IntHashMap maxMdds = new Int2IntHashMap(DEFAULT_MAX_MDDS);

    /**
     * Register a job: {@code cookie} runs under {@code ptag}.
     *
     * @param cookie the 32-bit cookie (high 16 bits: pkey).
     * @param ptag   a user ptag, {@value #PTAG_USER_START} to {@value #PTAG_USER_END}.
     * @return this.
     * @throws GniException INVALID_PARAM for a ptag out of the user range or a cookie already given another ptag.
     */
    public synchronized JobRegistry register(final int cookie, final int ptag)
    {
        if (ptag < PTAG_USER_START || ptag > PTAG_USER_END)
        {
            throw new GniException(GniRc.INVALID_PARAM, "ptag " + ptag + " outside the user range");
        }
        final int existing = ptagByCookie.get(cookie);
        if (-1 != existing && existing != ptag)
        {
            throw new GniException(GniRc.INVALID_PARAM, "cookie " + Integer.toHexString(cookie) +
                " already has ptag " + existing);
        }
        ptagByCookie.put(cookie, ptag);
        return this;
    }

    /**
     * Set a ptag's limits.
     *
     * @param ptag the ptag.
     * @param cqs  CQs per NIC.
     * @param mdds registrations per NIC (at most 4096).
     * @return this.
     */
    public synchronized JobRegistry limits(final int ptag, final int cqs, final int mdds)
    {
        if (cqs < 1 || mdds < 1 || mdds > DEFAULT_MAX_MDDS)
        {
            throw new GniException(GniRc.INVALID_PARAM, "limits cqs=" + cqs + " mdds=" + mdds);
        }
        maxCqs.put(ptag, cqs);
        maxMdds.put(ptag, mdds);
        return this;
    }

    /**
     * {@code GNI_GetPtag}.
     *
     * @param cookie a cookie.
     * @return its ptag, or -1 when the cookie is not registered.
     */
    public synchronized int ptag(final int cookie)
    {
        return ptagByCookie.get(cookie);
    }

    synchronized int maxCqs(final int ptag)
    {
        return maxCqs.get(ptag);
    }

    synchronized int maxMdds(final int ptag)
    {
        return maxMdds.get(ptag);
    }
}
