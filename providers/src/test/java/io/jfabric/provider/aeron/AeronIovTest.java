package io.jfabric.provider.aeron;

import io.jfabric.conformance.IovConformance;

/**
 * {@link IovConformance} over {@code aeron}.
 */
class AeronIovTest extends IovConformance
{
    AeronIovTest()
    {
        super(AeronConformance.factory());
    }
}
