package io.jfabric.provider.gni;

import io.jfabric.spi.OperationContext;

/**
 * Upstream's data-progress rule for eager messages (fi_gni(7): "for data progress, progression is only performed when
 * data transfers use the rendezvous protocol"; GNI.md §2.4, §2.11): with {@code FI_PROGRESS_AUTO} upstream's progress
 * thread wakes only for rendezvous traffic, so an eager message waits in its mailbox until the application progresses
 * the domain (a CQ, counter or EQ read, {@code Domain.progress()}), unless {@code GNI_EAGER_AUTO_PROGRESS} is set.
 * Here the domain's agent runs every duty cycle; it takes eager messages out of the mailboxes only in a cycle that
 * follows an application progress call ({@link OperationContext#applicationProgress()} moved since the previous
 * cycle), or always when the option is set or progress is MANUAL (every cycle is then the application's).
 * Rendezvous STARTs, FINs and the provider's control messages are always taken, except behind a held eager message
 * of the same VC (the mailbox is consumed in order, which keeps send-after-send order).
 * <p>
 * Threading: the domain agent's thread only.
 */
final class GniEagerProgress
{
    private final boolean autoProgress;
    private boolean eagerAutoProgress;
    private long seenCalls = -1;
    private boolean held;

    /**
     * @param autoProgress whether the domain's data progress is {@code FI_PROGRESS_AUTO}.
     */
    GniEagerProgress(final boolean autoProgress)
    {
        this.autoProgress = autoProgress;
    }

    /**
     * {@code GNI_EAGER_AUTO_PROGRESS}, read when the NIC is allocated (the domain's first endpoint,
     * {@link GniNicGeometry}), as upstream.
     *
     * @param eagerAutoProgress whether every duty cycle takes eager messages.
     */
    void eagerAutoProgress(final boolean eagerAutoProgress)
    {
        this.eagerAutoProgress = eagerAutoProgress;
    }

    /**
     * Decide for this duty cycle: one opaque read of the runtime's count.
     *
     * @param context the domain's operation context.
     */
    void onDutyCycle(final OperationContext context)
    {
        if (!autoProgress)
        {
            held = false;
            return;
        }
        final long calls = context.applicationProgress();
        held = calls == seenCalls && !eagerAutoProgress;
        seenCalls = calls;
    }

    /**
     * @return true when eager messages stay in their mailboxes this duty cycle.
     */
    boolean held()
    {
        return held;
    }
}
