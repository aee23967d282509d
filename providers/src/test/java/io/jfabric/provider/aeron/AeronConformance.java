package io.jfabric.provider.aeron;

import io.aeron.driver.MediaDriver;
import io.jfabric.conformance.PairFactory;

/**
 * The {@code aeron} provider in the conformance suite ({@code io.jfabric.conformance}): each {@code Aeron*Test} that
 * extends a suite class runs it over aeron in this JVM, two domains on UDP loopback (each on its own free port),
 * their fabrics attached to one media driver per suite class.
 * <p>
 * Threading: test thread only.
 */
final class AeronConformance implements PairFactory
{
    private MediaDriver driver;

    /**
     * @return a factory for one suite class.
     */
    static PairFactory factory()
    {
        return new AeronConformance();
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
        driver = AeronTests.startSharedDriver();
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
