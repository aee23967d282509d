package io.jfabric;

import io.jfabric.conformance.FloodConformance;

/**
 * {@link FloodConformance} over {@code inproc}.
 */
class InprocFloodTest extends FloodConformance
{
    InprocFloodTest()
    {
        super(InprocConformance.FACTORY);
    }
}
