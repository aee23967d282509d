package io.jfabric;

/**
 * One event queue entry ({@code fi_eq_entry} / {@code fi_eq_err_entry}): the event type, the object it concerns,
 * the context, an error value for error entries, and optional data.
 * <p>
 * Mutable and reusable; not thread-safe: one reader owns it.
 */
public final class EqEntry
{
    int event;
    Object fid;
    long context;
    long data;
    int err;
    Info info;
    byte[] param;

    /**
     * @return the event type ({@link EventQueue#CONNREQ}, ... or an application value).
     */
    public int event()
    {
        return event;
    }

    /**
     * @return the object the event concerns, or null.
     */
    public Object fid()
    {
        return fid;
    }

    /**
     * @return the context.
     */
    public long context()
    {
        return context;
    }

    /**
     * @return the event data.
     */
    public long data()
    {
        return data;
    }

    /**
     * @return for CONNREQ: the info to open the accepting endpoint with (its handle names the request); else null.
     */
    public Info info()
    {
        return info;
    }

    /**
     * @return connection data of a CONNREQ, or null.
     */
    public byte[] param()
    {
        return null == param ? null : param.clone();
    }

    /**
     * @return the positive errno of an error entry, else 0.
     */
    public int err()
    {
        return err;
    }
}
