package io.jfabric.provider.aeron;

import io.jfabric.conformance.FloodConformance;

/**
 * {@link FloodConformance} over {@code aeron}.
 */
class AeronFloodTest extends FloodConformance
{
    AeronFloodTest()
    {
        super(AeronConformance.factory());
    }
}
