package io.jfabric.provider.aeron;

import io.jfabric.conformance.AtomicConformance;

/**
 * {@link AtomicConformance} over {@code aeron}.
 */
class AeronAtomicTest extends AtomicConformance
{
    AeronAtomicTest()
    {
        super(AeronConformance.factory());
    }
}
