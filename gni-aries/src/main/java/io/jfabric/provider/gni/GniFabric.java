package io.jfabric.provider.gni;

import io.jfabric.spi.FabricBackend;
import io.jfabric.spi.OpsExtension;

/**
 * A gni fabric: its extensions {@code FI_GNI_FAB_OPS_1} ({@link GniFabricOps}) and {@code FI_GNI_FAB_OPS_2}
 * ({@link GniAuthKeyOps}), each under the header's name ({@code "fab ops 1"}, {@code "fab ops 2"}) and the man page's
 * ({@code "fabric ops 1"}, {@code "fabric ops 2"}). Their values are process-wide, as upstream's.
 * <p>
 * Threading: thread-safe.
 */
final class GniFabric implements FabricBackend
{
    @Override
    public OpsExtension openOps(final String name)
    {
        if (GniOps.FI_GNI_FAB_OPS_1.equals(name) || GniOps.FI_GNI_FABRIC_OPS_1.equals(name))
        {
            return new GniFabricOps(name);
        }
        if (GniOps.FI_GNI_FAB_OPS_2.equals(name) || GniOps.FI_GNI_FABRIC_OPS_2.equals(name))
        {
            return new GniAuthKeyOps(name);
        }
        return null;
    }
}
