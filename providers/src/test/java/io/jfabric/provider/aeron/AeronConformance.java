package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.jfabric.conformance.PairFactory;

/**
 * The {@code aeron} provider in the conformance suite ({@code io.jfabric.conformance}): each {@code Aeron*Test} that
 * extends a suite class runs it over aeron in this JVM, two domains on UDP loopback (each on its own free port),
 * their fabrics attached to one media driver per suite class; the {@code AeronIpc*Test} classes run it with the two
 * domains reaching each other over {@code aeron:ipc} through that driver.
 * <p>
 * Threading: test thread only.
 */
final class AeronConformance implements PairFactory
{
    private final boolean ipc;
    private MediaDriver driver;

    private AeronConformance(final boolean ipc)
    {
        this.ipc = ipc;
    }

    /**
     * @return a factory for one suite class, the domains on UDP loopback.
     */
    static PairFactory factory()
    {
        return new AeronConformance(false);
    }

    /**
     * @return a factory for one suite class, the domains over {@code aeron:ipc} (both on the suite's driver).
     */
    static PairFactory ipcFactory()
    {
        return new AeronConformance(true);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String provider()
    {
        return AeronProvider.NAME;
    }

    /**
     * A send completes when the driver took the frame; the frame is then still on its way to the peer.
     *
     * @return false.
     */
    @Override
    public boolean deliversWithTheSendCompletion()
    {
        return false;
    }

    /**
     * Datagrams travel on a {@code reliable=false} stream: one lost on the wire is lost.
     *
     * @return true.
     */
    @Override
    public boolean losesDatagrams()
    {
        return true;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void beforeAll()
    {
        driver = AeronTests.startSharedDriver(ipc);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void afterAll()
    {
        AeronTests.stopSharedDriver(driver);
    }
}
