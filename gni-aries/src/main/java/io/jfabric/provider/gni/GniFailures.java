package io.jfabric.provider.gni;

import io.jfabric.Errno;
import io.jfabric.aries.GniRc;

/**
 * The error completion of a failed FMA/BTE transfer or AMO (GNI.md §1.10, §3): {@code prov_errno} is always
 * {@code -FI_ECANCELED} ({@code gnixu_to_fi_errno(GNI_RC_TRANSACTION_ERROR)}, upstream's); {@code err} is
 * {@code FI_ECANCELED} for a transport failure (the peer gone, an injected or plan fault, a retransmit budget spent),
 * and for a protection NACK of the target NIC the runtime's errno of the same refusal, so that an application sees
 * what every jfabric provider reports: {@code FI_EINVAL} for a key that names no registration (never registered, or
 * closed), {@code FI_EACCES} for missing rights or a range outside the region, {@code FI_EFAULT} for pages a
 * reserved registration has not made live ({@code fi_mr_refresh} not called on them).
 * <p>
 * Threading: stateless.
 */
final class GniFailures
{
    private GniFailures()
    {
    }

    /**
     * @param detail the NACK's status ({@code PostDescriptor.errorDetail}) or {@code TRANSACTION_ERROR}.
     * @return the positive errno of the error completion.
     */
    static int errno(final int detail)
    {
        switch (detail)
        {
            case GniRc.INVALID_PARAM:
            case GniRc.ALIGNMENT_ERROR:
                return Errno.EINVAL.value();
            case GniRc.PERMISSION_ERROR:
                return Errno.EACCES.value();
            case GniRc.INVALID_STATE:
                return Errno.EFAULT.value();
            default:
                return Errno.ECANCELED.value();
        }
    }
}
