package io.jfabric.agent;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The application's progress calls on a domain that ran no duty cycle ({@code FI_PROGRESS_AUTO}; under MANUAL only a
 * call that found another thread running it): CQ reads, counter and EQ reads, {@code Domain.progress()} and the
 * waits that call it ({@code DomainAgent.progressCall()}). With automatic progress none of them enters the duty cycle
 * (the agent's thread runs it), so an operation-level back-end that must tell "the application polled" from "the
 * agent ran" (gni's eager rule: fi_gni(7), "data progress is only performed when data transfers use the rendezvous
 * protocol") asks for this count ({@code OperationBackend.countsApplicationProgress()}) and reads it once per duty
 * cycle through {@code OperationContext.applicationProgress()}. Made only for such a back-end: other domains have
 * none and their calls count nothing.
 * <p>
 * Threading: {@link #called()} from any application thread (an atomic increment); {@link #count()} on the agent's
 * thread (an opaque read).
 */
final class ProgressCalls
{
    private final AtomicLong calls = new AtomicLong();

    /**
     * One progress call of the application.
     */
    void called()
    {
        calls.getAndIncrement();
    }

    /**
     * @return calls so far; it only grows.
     */
    long count()
    {
        return calls.getOpaque();
    }
}
