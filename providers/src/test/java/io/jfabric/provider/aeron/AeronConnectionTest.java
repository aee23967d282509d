package io.jfabric.provider.aeron;

import io.jfabric.conformance.ConnectionConformance;

/**
 * {@link ConnectionConformance} over {@code aeron}.
 */
class AeronConnectionTest extends ConnectionConformance
{
    AeronConnectionTest()
    {
        super(AeronConformance.factory());
    }
}
