package io.jfabric.aries;

/**
 * Two nodes (device addresses 1 and 2) with one NIC each (inst id 1 and 2), a source CQ each and one endpoint on
 * each side bound to the other.
 */
final class AriesPair implements AutoCloseable
{
    static final int DEV_A = 1;
    static final int DEV_B = 2;
    static final int INST_A = 1;
    static final int INST_B = 2;

    final AriesFixture fixture;
    final AriesNode nodeA;
    final AriesNode nodeB;
    final GniNic nicA;
    final GniNic nicB;
    final GniCq cqA;
    final GniCq cqB;
    final GniEp epA;
    final GniEp epB;

    AriesPair()
    {
        this(null, null, 64);
    }

    AriesPair(final FaultPlan faultsA, final FaultPlan faultsB, final int cqEntries)
    {
        this(new AriesFixture(), faultsA, faultsB, cqEntries);
    }

    AriesPair(final AriesFixture fixture, final FaultPlan faultsA, final FaultPlan faultsB, final int cqEntries)
    {
        this.fixture = fixture;
        nodeA = fixture.node(DEV_A, faultsA);
        nodeB = fixture.node(DEV_B, faultsB);
        nicA = AriesFixture.nic(nodeA, INST_A);
        nicB = AriesFixture.nic(nodeB, INST_B);
        cqA = nicA.cqCreate(cqEntries);
        cqB = nicB.cqCreate(cqEntries);
        epA = nicA.epCreate(cqA);
        epB = nicB.epCreate(cqB);
        epA.bind(DEV_B, INST_B);
        epB.bind(DEV_A, INST_A);
    }

    @Override
    public void close()
    {
        fixture.close();
    }
}
