package io.jfabric.provider.gni;

import io.jfabric.aries.AriesNode;
import io.jfabric.aries.FaultPlan;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The emulator's fault plan (GNI.md §5.4) for the nodes of gni domains opened from now on, and those nodes, so that a
 * test in this package sees each fault of the plan at the API and checks the model through the nodes' read-only
 * {@code AriesStats} (GNI.md §3: overruns, retransmits, credit stalls are internal, observable only there). No plan
 * by default; not reachable from outside the package.
 * <p>
 * Threading: thread-safe; control path.
 */
final class GniFaults
{
    private static volatile FaultPlan plan;
    private static final List<AriesNode> NODES = new CopyOnWriteArrayList<>();

    private GniFaults()
    {
    }

    /**
     * Attach {@code faults} to every node opened from now on, until {@link #clear()}.
     *
     * @param faults the plan.
     */
    static void install(final FaultPlan faults)
    {
        NODES.clear();
        plan = faults;
    }

    /**
     * No plan for nodes opened from now on; forget the nodes.
     */
    static void clear()
    {
        plan = null;
        NODES.clear();
    }

    /**
     * @return the plan for a node opening now, or null.
     */
    static FaultPlan plan()
    {
        return plan;
    }

    /**
     * A node opened with the current plan.
     *
     * @param node the node.
     */
    static void opened(final AriesNode node)
    {
        if (null != plan)
        {
            NODES.add(node);
        }
    }

    /**
     * @param device a device address.
     * @return the node of that address opened under a plan, or null.
     */
    static AriesNode node(final int device)
    {
        for (final AriesNode node : NODES)
        {
            if (node.deviceAddress() == device)
            {
                return node;
            }
        }
        return null;
    }
}
