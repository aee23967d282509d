package io.jfabric.provider.aeron;

import io.jfabric.conformance.CancelSearchConformance;

/**
 * {@link CancelSearchConformance} over {@code aeron}.
 */
class AeronCancelSearchTest extends CancelSearchConformance
{
    AeronCancelSearchTest()
    {
        super(AeronConformance.factory());
    }
}
