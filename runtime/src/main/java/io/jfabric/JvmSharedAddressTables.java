package io.jfabric;

import io.jfabric.spi.SharedAddressTable;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The runtime's storage of named address vectors for transports that share nothing between processes
 * ({@link io.jfabric.spi.DomainTransport#sharedAddressTable} returned null): one table per provider and name, shared
 * by the domains of this JVM, gone when its creator closes.
 * <p>
 * Threading: the registry is a concurrent map; a table's puts come from its creator under the creator's monitor,
 * reads from any thread (a volatile array of entries and a volatile size, published in that order).
 */
final class JvmSharedAddressTables
{
    private static final ConcurrentHashMap<String, Table> TABLES = new ConcurrentHashMap<>();

    private JvmSharedAddressTables()
    {
    }

    static SharedAddressTable open(final String provider, final String name, final boolean create, final int capacity)
    {
        final String key = provider + "/" + name;
        if (create)
        {
            final Table table = new Table(key, capacity);
            if (null != TABLES.putIfAbsent(key, table))
            {
                throw new FabricException(Errno.EEXIST, "a shared address vector named '" + name + "' exists");
            }
            return table;
        }
        final Table table = TABLES.get(key);
        if (null == table)
        {
            throw new FabricException(Errno.ENOENT, "no shared address vector named '" + name + "'");
        }
        return table.reader();
    }

    private static final class Table implements SharedAddressTable
    {
        private final String key;
        private final int capacity;
        private final boolean creator;
        private final Table source;
        private volatile byte[][] entries;
        private volatile int size;

        Table(final String key, final int capacity)
        {
            this.key = key;
            this.capacity = capacity;
            this.creator = true;
            this.source = this;
            this.entries = new byte[Math.min(capacity, 64)][];
        }

        private Table(final Table source)
        {
            this.key = source.key;
            this.capacity = source.capacity;
            this.creator = false;
            this.source = source;
        }

        Table reader()
        {
            return new Table(this);
        }

        @Override
        public int capacity()
        {
            return capacity;
        }

        @Override
        public int size()
        {
            return source.size;
        }

        @Override
        public byte[] get(final int index)
        {
            final byte[][] e = source.entries;
            return index < 0 || index >= source.size || index >= e.length || null == e[index] ?
                null : e[index].clone();
        }

        @Override
        public int put(final int index, final byte[] address)
        {
            if (!creator)
            {
                return Errno.EACCES.negated();
            }
            if (index < 0 || index >= capacity)
            {
                return Errno.ENOSPC.negated();
            }
            byte[][] e = entries;
            if (index >= e.length)
            {
                e = Arrays.copyOf(e, Math.min(capacity, Math.max(index + 1, e.length * 2)));
            }
            else
            {
                e = e.clone();
            }
            e[index] = null == address ? null : address.clone();
            // Entries first, then the size that covers them (both volatile).
            entries = e;
            if (index >= size)
            {
                size = index + 1;
            }
            return 0;
        }

        @Override
        public void close()
        {
            if (creator)
            {
                TABLES.remove(key, this);
            }
        }
    }
}
