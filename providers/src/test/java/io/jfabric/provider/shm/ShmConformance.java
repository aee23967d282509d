package io.jfabric.provider.shm;

import io.jfabric.conformance.PairFactory;

import java.nio.file.Path;

/**
 * The {@code shm} provider in the conformance suite ({@code io.jfabric.conformance}): each {@code Shm*Test} that
 * extends a suite class runs it over shm in this JVM (two domains, each with its own ring file), in a private ring
 * directory per suite class.
 * <p>
 * Threading: test thread only.
 */
final class ShmConformance implements PairFactory
{
    private Path dir;

    /**
     * @return a factory for one suite class.
     */
    static PairFactory factory()
    {
        return new ShmConformance();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String provider()
    {
        return ShmProvider.NAME;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void beforeAll() throws Exception
    {
        dir = ShmTests.useNewDirectory("jfabric-shm-conformance-");
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void afterAll() throws Exception
    {
        ShmTests.deleteTree(dir);
    }
}
