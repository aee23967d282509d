package io.jfabric;

import io.jfabric.agent.ConnectionFrames;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A passive endpoint ({@code fi_passive_ep}): listens for connection requests of {@code FI_EP_MSG} endpoints and
 * reports each as a {@link EventQueue#CONNREQ} event whose {@link EqEntry#info()} opens the accepting endpoint
 * ({@code Domain.endpoint(info)}, then {@code Endpoint.accept}) or is turned down with {@link #reject}.
 * <p>
 * With a provider confined to one JVM ({@code TransportProvider.inProcessOnly()}) connection management runs on the
 * control path inside the JVM (a registry of listening names). Otherwise the passive endpoint opens a domain of its
 * own (automatic progress, so that requests arrive without the application progressing it) with one endpoint
 * slot, whose transport address is the name clients connect to, and requests come as frames of the runtime's
 * protocol ({@link ConnectionManager}), from any process the transport reaches. The data path of connected
 * endpoints is the ordinary agent path.
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
    private final AtomicBoolean closed = new AtomicBoolean();

    /** The frame path: the passive endpoint's own domain and its listening slot, else null. */
    private final Domain domain;
    private final Endpoint slot;

    PassiveEndpoint(final Fabric fabric, final Info info)
    {
        this.fabric = fabric;
        this.info = info;
        if (fabric.inProcessOnly())
        {
            this.name = SCHEME + NEXT.incrementAndGet();
            this.domain = null;
            this.slot = null;
            return;
        }
        final Info auto = info.toBuilder()
            .domainAttr(info.domainAttr().toBuilder().dataProgress(Progress.AUTO).build())
            .epAttr(info.epAttr().toBuilder().type(EndpointType.MSG).build())
            .build();
        this.domain = fabric.domain(auto, "backoff");
        try
        {
            this.slot = domain.endpoint(auto);
            this.name = null;
        }
        catch (final RuntimeException ex)
        {
            domain.close();
            throw ex;
        }
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
            if (null == slot)
            {
                LISTENING.put(name, this);
            }
            else
            {
                domain.connections().register(slot.index(), this);
            }
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
        return null == slot ? name.getBytes(StandardCharsets.US_ASCII) : slot.name();
    }

    /**
     * A CONNREQ frame for this passive endpoint (the domain's agent thread): a CONNREQ event, or a REJECT when it
     * no longer listens or its queue is full.
     */
    void frameRequest(final long clientKey, final long connection, final byte[] clientAddress, final byte[] param)
    {
        final ConnectionRequest request = new ConnectionRequest(this, clientAddress, clientKey, connection, param);
        final EventQueue queue = eq;
        if (!listening.get() || null == queue || queue.writeConnection(EventQueue.CONNREQ, this,
            requestInfo(clientAddress, request), param) < 0)
        {
            request.answer();
            sendReject(request, null);
        }
    }

    private Info requestInfo(final byte[] clientAddress, final ConnectionRequest request)
    {
        return info.toBuilder()
            .epAttr(info.epAttr().toBuilder().type(EndpointType.MSG).build())
            .destAddr(clientAddress)
            .handle(request)
            .build();
    }

    private void sendReject(final ConnectionRequest request, final byte[] param)
    {
        domain.connections().send(request.clientKey(), slot.index(), ConnectionFrames.REJECT, request.connection(),
            param);
    }

    void connectionRequest(final ConnectionRequest request)
    {
        final Info requestInfo = requestInfo(request.client().name(), request);
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
        if (request.remote())
        {
            request.pep().sendReject(request, param);
            return;
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
            if (null == slot)
            {
                LISTENING.remove(name, this);
            }
            else
            {
                domain.connections().unregister(slot.index(), this);
            }
        }
        if (null != slot && !closed.getAndSet(true))
        {
            slot.close();
            domain.close();
        }
    }
}
