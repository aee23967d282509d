package io.jfabric.aries;

/**
 * A communication domain ({@code gni_cdm_handle_t}): inst id, ptag, cookie and modes. Attaching it to the device
 * gives its NIC handle; a domain attaches once ({@code GNI_RC_INVALID_STATE} the second time, GNI.md §1.1).
 * <p>
 * Threading: control path; calls are serialised by the node's lock.
 */
public final class Cdm
{
    /** {@code GNI_CDM_MODE_ERR_NO_KILL}: errors are reported in CQs (the emulator's only behaviour). */
    public static final int MODE_ERR_NO_KILL = 0x1000;

    private final AriesNode node;
    private final int instId;
    private final int ptag;
    private final int cookie;
    private final int modes;
    private GniNic nic;
    private boolean destroyed;

    Cdm(final AriesNode node, final int instId, final int ptag, final int cookie, final int modes)
    {
        this.node = node;
        this.instId = instId;
        this.ptag = ptag;
        this.cookie = cookie;
        this.modes = modes;
    }

    /**
     * @return the inst id.
     */
    public int instId()
    {
        return instId;
    }

    /**
     * @return the ptag.
     */
    public int ptag()
    {
        return ptag;
    }

    /**
     * @return the cookie.
     */
    public int cookie()
    {
        return cookie;
    }

    /**
     * @return the modes.
     */
    public int modes()
    {
        return modes;
    }

    /**
     * {@code GNI_CdmAttach}: attach to device {@code deviceId} (only 0 exists) and get the NIC handle; the NIC's
     * (device address, inst id) is published in the directory so that peers can reach it.
     *
     * @param deviceId the device, 0.
     * @return the NIC.
     * @throws GniException INVALID_PARAM for another device, INVALID_STATE when already attached or destroyed,
     *                      PERMISSION_ERROR when the job registry does not give this cookie this ptag.
     */
    public GniNic attach(final int deviceId)
    {
        node.lock();
        try
        {
            if (0 != deviceId)
            {
                throw new GniException(GniRc.INVALID_PARAM, "no device " + deviceId);
            }
            if (null != nic || destroyed)
            {
                throw new GniException(GniRc.INVALID_STATE, "CDM " + instId + " already attached");
            }
            if (node.jobs.ptag(cookie) != ptag)
            {
                throw new GniException(GniRc.PERMISSION_ERROR, "cookie " + Integer.toHexString(cookie) +
                    " is not a job of ptag " + ptag);
            }
            nic = new GniNic(node, this);
            node.engine.attach(nic);
            node.directory.publish(node.deviceAddress, instId, node.wire.localAddress());
            return nic;
        }
        finally
        {
            node.unlock();
        }
    }

    /**
     * {@code GNI_CdmDestroy}: detach the NIC (its endpoints stop matching) and free the inst id.
     *
     * @return {@link GniRc#SUCCESS}, or {@link GniRc#INVALID_STATE} when already destroyed.
     */
    public int destroy()
    {
        node.lock();
        try
        {
            if (destroyed)
            {
                return GniRc.INVALID_STATE;
            }
            destroyed = true;
            if (null != nic)
            {
                node.engine.detach(nic);
            }
            node.directory.releaseInstId(node.deviceAddress, instId);
            return GniRc.SUCCESS;
        }
        finally
        {
            node.unlock();
        }
    }
}
