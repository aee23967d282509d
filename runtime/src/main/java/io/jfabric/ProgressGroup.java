package io.jfabric;

import io.jfabric.stat.CountersFile;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.DynamicCompositeAgent;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One automatic-progress thread shared by several domains (an Agrona {@link DynamicCompositeAgent} on an
 * {@link AgentRunner} thread named {@code jfabric-<name>}): {@code Fabric.domain(info, group)} adds a domain's
 * agent, closing the domain removes it.
 * <p>
 * Threading: thread-safe; control path. Agents are added and removed one at a time (a monitor).
 */
public final class ProgressGroup implements AutoCloseable
{
    private final DynamicCompositeAgent composite;
    private final AgentRunner runner;
    private final CountersFile countersFile;
    private final AtomicInteger members = new AtomicInteger();

    ProgressGroup(final String name, final IdleStrategy idleStrategy)
    {
        composite = new DynamicCompositeAgent("jfabric-" + name);
        countersFile = CountersFile.acquire();
        runner = new AgentRunner(idleStrategy, countersFile, null, composite);
        AgentRunner.startOnThread(runner);
    }

    /**
     * @return the thread's name, {@code jfabric-<name>}.
     */
    public String threadName()
    {
        return composite.roleName();
    }

    synchronized void add(final org.agrona.concurrent.Agent agent)
    {
        // The composite accepts agents once its thread has started it (onStart sets it ACTIVE).
        while (DynamicCompositeAgent.Status.ACTIVE != composite.status())
        {
            Thread.yield();
        }
        while (!composite.tryAdd(agent))
        {
            Thread.yield();
        }
        while (!composite.hasAddAgentCompleted())
        {
            Thread.yield();
        }
        members.incrementAndGet();
    }

    synchronized void remove(final org.agrona.concurrent.Agent agent)
    {
        while (!composite.tryRemove(agent))
        {
            Thread.yield();
        }
        while (!composite.hasRemoveAgentCompleted())
        {
            Thread.yield();
        }
        members.decrementAndGet();
    }

    /**
     * Stop the thread.
     *
     * @throws FabricException EBUSY while domains still use it.
     */
    @Override
    public void close()
    {
        if (members.get() > 0)
        {
            throw new FabricException(Errno.EBUSY, "progress group " + threadName() + " still drives " +
                members.get() + " domain(s)");
        }
        CloseHelper.close(runner);
        countersFile.release();
    }
}
