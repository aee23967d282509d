package io.jfabric.spi;

/**
 * The storage of a named (shared) address vector ({@code fi_av_attr.name}, {@code FI_SHARED_AV}): index {@code i}
 * holds the address bytes the creator inserted as {@code fi_addr} {@code i}. The creator writes; every other open
 * ({@code FI_READ}) reads the addresses and resolves them with its own transport, so that the same index names the
 * same peer in every process. A transport that can share between processes returns one from
 * {@link DomainTransport#sharedAddressTable}; the runtime keeps one in the JVM otherwise.
 * <p>
 * Threading: {@link #put} is called by the creator only (under its address vector's monitor); {@link #size} and
 * {@link #get} by readers of any process, concurrently with puts: an entry is published before the size that
 * covers it.
 */
public interface SharedAddressTable extends AutoCloseable
{
    /**
     * @return the most entries the table holds.
     */
    int capacity();

    /**
     * @return entries published so far (the highest index written, plus one).
     */
    int size();

    /**
     * @param index an index below {@link #size()}.
     * @return a copy of the address bytes, or null when the entry was removed.
     */
    byte[] get(int index);

    /**
     * Creator only: write (or, with null, remove) the entry at {@code index}.
     *
     * @param index   from 0 to {@link #capacity()} - 1.
     * @param address the address bytes, or null to remove.
     * @return 0, {@code -ENOSPC} beyond the capacity, {@code -EINVAL} for an address longer than the table takes.
     */
    int put(int index, byte[] address);

    /**
     * Close this open: the creator's close removes the name (later opens fail with {@code ENOENT}); a reader's
     * only releases its mapping.
     */
    @Override
    void close();
}
