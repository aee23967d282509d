package io.jfabric.provider.gni;

/**
 * The remote accesses a target serves (an MR query answered with a registration of its MR cache, until the
 * initiator's RMA done), by cache entry, with the key of the memory region each reads or writes. When a region
 * closes ({@code OperationBackend.regionClosed}) the accesses of its key are revoked: their NIC registrations are
 * deregistered at once, so the initiator's PUT and GET frames are refused from then on and nothing more lands in or
 * leaves the region's memory, and the access ends with {@code FI_EINVAL} at the initiator (its RMA done is answered
 * with that status), as the runtime fails an access to a key that is no longer valid.
 * <p>
 * Agent thread only; allocation-free.
 */
final class GniTargetAccesses
{
    private final long[] key = new long[GniMrCache.CAPACITY];
    private final int[] users = new int[GniMrCache.CAPACITY];
    private final boolean[] revoked = new boolean[GniMrCache.CAPACITY];

    /**
     * An access begins.
     *
     * @param entry the MR cache entry that serves it.
     * @param mrKey the key it names.
     */
    void begin(final int entry, final long mrKey)
    {
        if (entry >= 0 && entry < key.length)
        {
            key[entry] = mrKey;
            users[entry]++;
        }
    }

    /**
     * An access ends (its RMA done came).
     *
     * @param entry the MR cache entry that served it.
     * @return true when its region closed while it was in flight.
     */
    boolean end(final int entry)
    {
        if (entry < 0 || entry >= key.length || users[entry] < 1)
        {
            return false;
        }
        final boolean wasRevoked = revoked[entry];
        if (--users[entry] == 0)
        {
            revoked[entry] = false;
        }
        return wasRevoked;
    }

    /**
     * The region of {@code mrKey} closed: revoke the registrations of its accesses in flight.
     *
     * @param mrKey the region's key.
     * @param cache the MR cache holding the registrations.
     * @return the number of accesses revoked.
     */
    int regionClosed(final long mrKey, final GniMrCache cache)
    {
        int count = 0;
        for (int i = 0; i < key.length; i++)
        {
            if (users[i] > 0 && key[i] == mrKey && !revoked[i] && cache.revoke(i))
            {
                revoked[i] = true;
                count++;
            }
        }
        return count;
    }
}
