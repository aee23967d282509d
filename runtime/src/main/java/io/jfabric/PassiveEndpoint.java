package io.jfabric;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A passive endpoint ({@code fi_passive_ep}): listens for connection requests of {@code FI_EP_MSG} endpoints and
 * reports each as a {@link EventQueue#CONNREQ} event whose {@link EqEntry#info()} opens the accepting endpoint
 * ({@code Domain.endpoint(info)}, then {@code Endpoint.accept}) or is turned down with {@link #reject}.
 * <p>
 * Connection management runs on the control path inside the JVM (a registry of listening names), which is what
 * the inproc provider needs; the data path of connected endpoints is the ordinary agent path.
 * <p>
 * Threading: thread-safe; control path.
 */
public final class PassiveEndpoint implements AutoCloseable
{
    private static final String SCHEME = "fi_pep://";
    private static final ConcurrentHashMap<String, PassiveEndpoint> LISTENING = new ConcurrentHashMap<>();
    private static final AtomicInteger NEXT = new AtomicInteger();

    private final Fabric fabric;
    private final Info info;
    private final String name;
    private volatile EventQueue eq;
    private final AtomicBoolean listening = new AtomicBoolean();

    PassiveEndpoint(final Fabric fabric, final Info info)
    {
        this.fabric = fabric;
        this.info = info;
        this.name = SCHEME + NEXT.incrementAndGet();
    }

    static PassiveEndpoint listening(final byte[] address)
    {
        return null == address ? null : LISTENING.get(new String(address, StandardCharsets.US_ASCII));
    }

    /**
     * {@code fi_pep_bind} to an event queue.
     *
     * @param eventQueue the EQ receiving CONNREQ events.
     * @param flags      0.
     * @return this.
     * @throws FabricException EBADFLAGS for non-zero flags.
     */
    public PassiveEndpoint bind(final EventQueue eventQueue, final long flags)
    {
        if (0 != flags)
        {
            throw new FabricException(Errno.EBADFLAGS, "pep bind flags 0x" + Long.toHexString(flags));
        }
        eq = eventQueue;
        return this;
    }

    /**
     * {@code fi_listen}.
     *
     * @return this.
     * @throws FabricException ENOEQ without an event queue.
     */
    public PassiveEndpoint listen()
    {
        if (null == eq)
        {
            throw new FabricException(Errno.ENOEQ, "a passive endpoint needs an event queue before listen");
        }
        if (listening.compareAndSet(false, true))
        {
            LISTENING.put(name, this);
        }
        return this;
    }

    /**
     * {@code fi_getname}: the address clients connect to.
     *
     * @return the address bytes.
     */
    public byte[] name()
    {
        return name.getBytes(StandardCharsets.US_ASCII);
    }

    void connectionRequest(final ConnectionRequest request)
    {
        final Info requestInfo = info.toBuilder()
            .epAttr(info.epAttr().toBuilder().type(EndpointType.MSG).build())
            .destAddr(request.client().name())
            .handle(request)
            .build();
        if (eq.writeConnection(EventQueue.CONNREQ, this, requestInfo, request.param()) < 0)
        {
            request.answer();
            request.client().connection().rejected(null);
        }
    }

    /**
     * {@code fi_reject}: turn down the request named by a CONNREQ event's info; the client gets an error event
     * {@code ECONNREFUSED}.
     *
     * @param requestInfo the info of the CONNREQ event.
     * @param param       data for the client (its error event's {@link EqEntry#param()}, libfabric's
     *                    {@code err_data}), or null; at most {@link Endpoint#CM_DATA_SIZE} bytes.
     * @throws FabricException EINVAL when the info names no pending request, or for more connection data than
     *                         {@link Endpoint#CM_DATA_SIZE}.
     */
    public void reject(final Info requestInfo, final byte[] param)
    {
        EndpointConnection.checkCmData(param);
        if (null == requestInfo || !(requestInfo.handle() instanceof ConnectionRequest))
        {
            throw new FabricException(Errno.EINVAL, "info carries no connection request");
        }
        final ConnectionRequest request = (ConnectionRequest) requestInfo.handle();
        if (!request.answer())
        {
            throw new FabricException(Errno.EINVAL, "connection request already answered");
        }
        request.client().connection().rejected(null == param ? null : param.clone());
    }

    /**
     * {@code fi_getopt} on a passive endpoint.
     *
     * @param option {@link Endpoint#OPT_CM_DATA_SIZE}: the most connection data a CONNREQ event carries.
     * @return the value.
     * @throws FabricException ENOPROTOOPT for another option.
     */
    public long option(final int option)
    {
        if (Endpoint.OPT_CM_DATA_SIZE != option)
        {
            throw new FabricException(Errno.ENOPROTOOPT, "option " + option);
        }
        return Endpoint.CM_DATA_SIZE;
    }

    /**
     * Stop listening.
     */
    @Override
    public void close()
    {
        if (listening.compareAndSet(true, false))
        {
            LISTENING.remove(name, this);
        }
    }
}
