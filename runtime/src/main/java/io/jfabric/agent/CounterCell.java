package io.jfabric.agent;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The value and error count of one counter, each on its own cache-line pair (128 bytes apart) in direct memory.
 * <p>
 * Threading: the agent increments with {@code getAndAddLong} (atomic, because applications may add or set
 * concurrently); readers use {@code getLongVolatile}. Safe for any number of threads.
 */
public final class CounterCell
{
    private static final int VALUE = 128;
    private static final int ERROR = 256;
    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(512));

    /**
     * @return the success count (volatile read).
     */
    public long value()
    {
        return buffer.getLongVolatile(VALUE);
    }

    /**
     * @return the error count (volatile read).
     */
    public long error()
    {
        return buffer.getLongVolatile(ERROR);
    }

    /**
     * Add to the success count (atomic).
     *
     * @param delta the amount.
     */
    public void add(final long delta)
    {
        buffer.getAndAddLong(VALUE, delta);
    }

    /**
     * Add to the error count (atomic).
     *
     * @param delta the amount.
     */
    public void addError(final long delta)
    {
        buffer.getAndAddLong(ERROR, delta);
    }

    /**
     * Set the success count (release store).
     *
     * @param value the new value.
     */
    public void set(final long value)
    {
        buffer.putLongVolatile(VALUE, value);
    }

    /**
     * Set the error count.
     *
     * @param value the new value.
     */
    public void setError(final long value)
    {
        buffer.putLongVolatile(ERROR, value);
    }
}
