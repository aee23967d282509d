package io.jfabric;

import io.jfabric.agent.TriggerTable;

/**
 * The posting side of triggered operations ({@code FI_TRIGGER} in the flags of a msg form: {@code sendmsg},
 * {@code tsendmsg}, {@code writemsg}, {@code readmsg}, {@code atomicmsg}, {@code fetchAtomicmsg},
 * {@code compareAtomicmsg}). The message's context must be the handle of an open {@link TriggeredContext} of the
 * endpoint's domain ({@code -EINVAL} otherwise); the post takes a place in the domain's held store before it is
 * written ({@code -EAGAIN} when {@link TriggerTable#HELD} operations are held) and gives it back when the post
 * fails. The post itself runs the usual checks and reservations; the domain agent holds the command until the
 * context's counter reaches its threshold ({@link TriggerTable}).
 * <p>
 * Threading: any posting thread; allocation-free.
 */
final class TriggeredPosts
{
    /** A triggered receive: not offered (fi_trigger(3) lets a provider choose which calls are trigger-able). */
    static final int RECEIVE = Errno.ENOSYS.negated();

    private TriggeredPosts()
    {
    }

    /**
     * Take a triggered post's place, when {@code flags} carry {@code FI_TRIGGER}.
     *
     * @param domain  the endpoint's domain.
     * @param enabled whether the endpoint is enabled.
     * @param msg     the message (a null one is refused by the post itself).
     * @param flags   the post's flags.
     * @return 0, or {@code -EOPBADSTATE} (endpoint not enabled), {@code -EINVAL} (no open trigger context),
     * {@code -EAGAIN} (the held store is full).
     */
    static int take(final Domain domain, final boolean enabled, final Message msg, final long flags)
    {
        if ((flags & Flags.TRIGGER) == 0 || null == msg)
        {
            return 0;
        }
        if (!enabled)
        {
            return Errno.EOPBADSTATE.negated();
        }
        final TriggerTable triggers = domain.triggers();
        final int index = triggers.indexOf(msg.context);
        if (index < 0)
        {
            return Errno.EINVAL.negated();
        }
        return triggers.reserve(index) ? 0 : Errno.EAGAIN.negated();
    }

    /**
     * Give back the place {@link #take} took when the post failed.
     *
     * @param domain the endpoint's domain.
     * @param msg    the message.
     * @param flags  the post's flags.
     * @param result the post's answer.
     * @return {@code result}.
     */
    static int done(final Domain domain, final Message msg, final long flags, final int result)
    {
        if (0 != result && (flags & Flags.TRIGGER) != 0 && null != msg)
        {
            final TriggerTable triggers = domain.triggers();
            final int index = triggers.indexOf(msg.context);
            if (index >= 0)
            {
                triggers.unreserve(index);
            }
        }
        return result;
    }
}
