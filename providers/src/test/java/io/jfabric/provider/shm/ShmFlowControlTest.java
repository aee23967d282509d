package io.jfabric.provider.shm;

import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricAttr;
import io.jfabric.FabricException;
import io.jfabric.Flags;
import io.jfabric.Info;
import io.jfabric.Version;
import io.jfabric.agent.FlowControl;
import io.jfabric.conformance.FlowControlConformance;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FlowControlConformance} over {@code shm}, and shm's own case: a domain refused for a bad flow-control
 * property leaves its name (its ring file) free.
 */
class ShmFlowControlTest extends FlowControlConformance
{
    ShmFlowControlTest()
    {
        super(ShmConformance.factory());
    }

    @Test
    void shouldRefuseADomainWithAFlowControlPropertyThatIsNotANumberAndKeepItsNameFree()
    {
        final Info hints = Info.builder().caps(Flags.TAGGED)
            .fabricAttr(FabricAttr.builder().provName(ShmProvider.NAME).build()).build();
        final Info info = Fabric.getInfo(Version.CURRENT, "flow-badprop", null, Flags.SOURCE, hints).get(0);
        try (Fabric fabric = Fabric.open(info))
        {
            System.setProperty(FlowControl.CREDITS_PROP, "lots");
            final FabricException refused = assertThrows(FabricException.class, () -> fabric.domain(info));
            assertEquals(Errno.EINVAL, refused.errno());
            assertTrue(refused.getMessage().contains(FlowControl.CREDITS_PROP), refused.getMessage());
            System.clearProperty(FlowControl.CREDITS_PROP);
            // The failed open left nothing behind: the name opens again and the fabric closes (no child left).
            fabric.domain(info).close();
        }
    }
}
